import { CALL_SOURCES, type Step } from '../../internal.ts';

/** How one field of a step is checked: the kind of value it holds, and whether it may be missing. */
type FieldKind = 'text' | 'short' | 'count' | 'bool' | 'shorts' | 'data' | 'record' | readonly string[];
type Field = FieldKind | { readonly optional: FieldKind };

/** Limits on one step's fields: the page's own caps (a generation's raw text is kept at 6,000 characters). */
export interface StepLimits {
  readonly textChars: number;
  readonly shortChars: number;
  /** Characters of a field of free-form data once written as JSON (settings, a selection, a result's details). */
  readonly dataChars: number;
}

const ROUND = { round: 'count' } as const;
const CALL_STATUSES = ['ok', 'duplicate', 'error', 'invalid', 'unknown', 'refused', 'aborted'] as const;
const RUNGS = ['inline', 'gate', 'primed', 'stepwise'] as const;

/**
 * Every kind of step the page records, and its fields: a step of a file is rebuilt from these alone.
 * `handover` is not here: only the AI SDK's turns hand calls over, and the page never records one.
 */
const STEP_FIELDS: Readonly<Record<Exclude<Step['kind'], 'handover'>, Readonly<Record<string, Field>>>> = {
  started: { systemPrompt: 'text', settings: 'data', offered: 'shorts', selection: { optional: 'data' } },
  round: { ...ROUND, phase: ['tools', 'answer'] },
  prepared: { ...ROUND, activeTools: { optional: 'shorts' }, toolChoice: { optional: 'data' } },
  generation: { ...ROUND, strategy: 'short', promptTokens: 'count', cachedTokens: 'count', newTokens: 'count', ms: 'count', text: 'text' },
  escalate: { ...ROUND, rung: RUNGS.slice(1) },
  choice: { ...ROUND, which: 'short', raw: 'text', resolved: 'text' },
  verdict: { ...ROUND, rung: RUNGS, verdict: ['use', 'next', 'stop'] },
  'forced-failed': { ...ROUND, strategy: ['primed', 'stepwise'], raw: 'text', name: { optional: 'short' }, reason: 'text' },
  call: { ...ROUND, record: 'record' },
  effects: { ...ROUND, effects: 'data' },
  'unoffered-call': { ...ROUND, name: 'short', written: 'short' },
  turn: { ...ROUND, text: 'text', callIds: 'shorts', split: 'bool' },
  memory: {
    ...ROUND,
    from: 'count',
    shortenBefore: 'count',
    dropped: 'count',
    shortened: 'count',
    promptTokens: 'count',
    budgetTokens: 'count',
  },
  finished: { ms: 'count', text: 'text', firstTextMs: { optional: 'count' } },
};

/** A call's record, as a `call` step keeps it (its raw return value is never kept). */
const RECORD_FIELDS: Readonly<Record<string, Field>> = {
  id: 'short',
  name: 'short',
  arguments: 'data',
  source: CALL_SOURCES,
  round: 'count',
  status: CALL_STATUSES,
  result: 'text',
  details: { optional: 'data' },
  ms: 'count',
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Thrown with what is wrong with a step, for the caller to say where. */
export class StepCheckError extends Error {
  override readonly name = 'StepCheckError';
}

function checkField(value: unknown, kind: FieldKind, name: string, limits: StepLimits): unknown {
  const fail = (what: string): never => {
    throw new StepCheckError(`has ${name} that is not ${what}`);
  };
  if (Array.isArray(kind)) return typeof value === 'string' && kind.includes(value) ? value : fail(`one of ${kind.join(', ')}`);
  switch (kind) {
    case 'text':
      return typeof value === 'string' && value.length <= limits.textChars ? value : fail(`a text of at most ${limits.textChars} characters`);
    case 'short':
      return typeof value === 'string' && value.length <= limits.shortChars ? value : fail(`a text of at most ${limits.shortChars} characters`);
    case 'count':
      return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fail('a number of at least 0');
    case 'bool':
      return typeof value === 'boolean' ? value : fail('true or false');
    case 'shorts':
      return Array.isArray(value) && value.length <= 500 && value.every((v) => typeof v === 'string' && v.length <= limits.shortChars)
        ? [...value]
        : fail('a list of short texts');
    case 'data': {
      // Free-form data (settings, arguments, details) is copied through JSON: nothing but data survives.
      const json = value === undefined ? undefined : JSON.stringify(value);
      return json !== undefined && json.length <= limits.dataChars ? JSON.parse(json) : fail(`data of at most ${limits.dataChars} characters`);
    }
    case 'record':
      return isObject(value) ? fields(value, RECORD_FIELDS, limits) : fail('a call record');
    default:
      return fail('known');
  }
}

/** A fresh object of the listed fields only, each checked. */
function fields(value: Record<string, unknown>, shape: Readonly<Record<string, Field>>, limits: StepLimits): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape)) {
    const optional = typeof field === 'object' && !Array.isArray(field) && 'optional' in field;
    const kind = optional ? (field as { optional: FieldKind }).optional : (field as FieldKind);
    if (value[name] === undefined) {
      if (optional) continue;
      throw new StepCheckError(`has no ${name}`);
    }
    out[name] = checkField(value[name], kind, name, limits);
  }
  return out;
}

/**
 * One step of an imported answer, rebuilt from its kind's fields alone, each checked.
 *
 * @throws StepCheckError saying what is wrong (the caller adds where).
 *
 * @remarks Security: an imported answer's steps are what the page shows of it and what the model remembers
 * of it. Threat: a crafted step that breaks the thread on every visit (a field of the wrong kind where a view
 * reads it), smuggles a field the page acts on, or floods storage.
 */
export function checkStep(value: unknown, limits: StepLimits): Step {
  if (!isObject(value) || typeof value.kind !== 'string' || !Object.hasOwn(STEP_FIELDS, value.kind)) {
    throw new StepCheckError(`is not a step of a kind the page records (${Object.keys(STEP_FIELDS).join(', ')})`);
  }
  const shape = STEP_FIELDS[value.kind as keyof typeof STEP_FIELDS];
  return { kind: value.kind, ...fields(value, shape, limits) } as Step;
}

import type { ToolSchema } from '../engine/engine.ts';
import type { ModelFamily } from '../engine/model-family.ts';
import type { AnswerRun } from './answer-run.ts';
import { emptyAttempt, type Attempt } from './attempt.ts';
import { withoutMarkers } from './strip-markers.ts';
import { outside, outsideDeep, withoutOutsideMarks } from '../shared/outside-text.ts';

type PropertySchema = { readonly [keyword: string]: unknown };

/** How one argument is asked for: what opens the value, and how the raw completion becomes a value. */
interface ArgumentQuestion {
  opener: string;
  choices?: string[];
  stop?: string[];
  maxNewTokens: number;
  decode(raw: string): unknown;
}

function decodeJsonish(raw: string): unknown {
  const text = raw.trim().replace(/,$/, '');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Chooses how to ask for a value of this schema: enums and booleans from a closed list, strings primed with a quote. */
function questionFor(schema: PropertySchema): ArgumentQuestion {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const choices = schema.enum.map((v) => JSON.stringify(v));
    return { opener: '', choices, maxNewTokens: 32, decode: (raw) => JSON.parse(raw) as unknown };
  }
  switch (schema.type) {
    case 'boolean':
      return { opener: '', choices: ['true', 'false'], maxNewTokens: 2, decode: (raw) => raw === 'true' };
    case 'number':
    case 'integer':
      return {
        opener: '',
        stop: ['\n', ','],
        maxNewTokens: 12,
        decode: (raw) => {
          const text = raw.replace(/[\n,]$/, '').trim();
          const value = Number(text);
          return text !== '' && Number.isFinite(value) ? value : text;
        },
      };
    case 'array':
    case 'object':
      return { opener: '', stop: ['\n'], maxNewTokens: 96, decode: decodeJsonish };
    default:
      return {
        opener: '"',
        stop: ['"', '\n'],
        maxNewTokens: 48,
        decode: (raw) => raw.replace(/["\n]$/, ''),
      };
  }
}

/** A raw completion without the stop string that ended it. */
function withoutStop(raw: string, stop: readonly string[]): string {
  const found = stop.find((s) => raw.endsWith(s));
  return found ? raw.slice(0, -found.length) : raw;
}

/**
 * Asks for a value inside the family's own call syntax ({@link ModelFamily.argumentSlot}): the value
 * is bare, as the model writes it there; enums and booleans still come from a closed list.
 */
function slotQuestion(
  family: ModelFamily & Required<Pick<ModelFamily, 'argumentSlot'>>,
  name: string,
  chosen: Record<string, unknown>,
  key: string,
  schema: PropertySchema,
): ArgumentQuestion {
  const values = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined;
  const quoted = schema.type === 'string' || (schema.type === undefined && (values ?? ['']).every((v) => typeof v === 'string'));
  const slot = family.argumentSlot(name, chosen, key, quoted);
  if (values?.length) {
    return { opener: slot.opener, choices: values.map(String), maxNewTokens: 32, decode: (raw) => values.find((v) => String(v) === raw.trim()) ?? raw.trim() };
  }
  switch (schema.type) {
    case 'boolean':
      return { opener: slot.opener, choices: ['true', 'false'], maxNewTokens: 2, decode: (raw) => raw.trim() === 'true' };
    case 'number':
    case 'integer': {
      const plain = questionFor(schema);
      const stop = [...slot.stop, '\n'];
      return { ...plain, opener: slot.opener, stop, decode: (raw) => plain.decode(withoutStop(raw, stop)) };
    }
    case 'array':
    case 'object':
      return { opener: slot.opener, stop: [...slot.stop], maxNewTokens: 96, decode: (raw) => decodeJsonish(withoutStop(raw, slot.stop)) };
    default:
      return { opener: slot.opener, stop: [...slot.stop], maxNewTokens: 48, decode: (raw) => withoutStop(raw, slot.stop).trim() };
  }
}

/** Picks the tool: constrained to the offered names, so nothing unregistered can come out. */
async function selectTool(run: AnswerRun, prompt: string, offered: readonly ToolSchema[]): Promise<string | undefined> {
  const names = offered.map((t) => t.function.name);
  const selectPrefix = run.engine.family.selectPrefix;
  if (names.length === 1) {
    run.record({ kind: 'choice', round: run.round, which: 'select', raw: '', resolved: names[0] ?? '' });
    return names[0];
  }
  const generated = await run.generate(prompt + selectPrefix, { maxNewTokens: 24, choices: names }, 'stepwise', selectPrefix);
  const resolved = run.resolveOffered(generated.text);
  run.record({ kind: 'choice', round: run.round, which: 'select', raw: selectPrefix + generated.text, resolved: resolved ?? '' });
  return resolved;
}

/**
 * Stepwise: a closed question picks the tool from the registered list, then one short generation
 * per required argument with the value primed (`city = "`) — no JSON for a small model to malform.
 * Every step extends the same prompt prefix, so each costs only its own tokens. The assembled call
 * is validated against the schema when it runs, like any other.
 */
export async function attemptStepwise(run: AnswerRun, prompt: string, forcedName?: string): Promise<Attempt> {
  const offered = run.offeredTools;
  const name = forcedName ?? (await selectTool(run, prompt, offered));
  const schema = offered.find((t) => t.function.name === name);
  if (!name || !schema) {
    run.record({
      kind: 'forced-failed',
      round: run.round,
      strategy: 'stepwise',
      raw: name ?? '',
      ...(name ? { name } : {}),
      reason: 'The stepwise choice is not a registered tool.',
    });
    return emptyAttempt('stepwise');
  }

  const { properties, required = Object.keys(properties) } = schema.function.parameters;
  const family = run.engine.family;
  const slotted = family.argumentSlot ? (family as ModelFamily & Required<Pick<ModelFamily, 'argumentSlot'>>) : undefined;
  const args: Record<string, unknown> = {};
  let transcript = `${prompt}${family.selectPrefix}${name}.\n`;
  for (const key of required) {
    const property = properties[key] ?? {};
    // Argument names are the schema's and the values so far the model's: outside text where they join the prompt.
    const question = slotted ? slotQuestion(slotted, name, outsideDeep(args), outside(key), property) : questionFor(property);
    const shown = slotted ? withoutOutsideMarks(question.opener) : `${key} = ${question.opener}`;
    // In the family's own syntax the slot follows the assistant header; otherwise a `key = ` line follows the choice.
    const ask = slotted ? `${prompt}${question.opener}` : `${transcript}${outside(key)} = ${question.opener}`;
    const generated = await run.generate(
      ask,
      {
        maxNewTokens: question.maxNewTokens,
        ...(question.choices ? { choices: question.choices } : {}),
        ...(question.stop ? { stop: question.stop } : {}),
      },
      'stepwise',
      shown,
    );
    const value = withoutMarkers({ name, arguments: { value: question.decode(generated.text) } }, family.valueMarkers).arguments.value;
    args[key] = value;
    run.record({
      kind: 'choice',
      round: run.round,
      which: `arg:${key}`,
      raw: `${withoutOutsideMarks(question.opener)}${generated.text}`,
      resolved: JSON.stringify(value),
    });
    transcript += `${outside(key)} = ${outside(JSON.stringify(value))}\n`;
  }
  if (slotted) transcript = prompt + family.formatCall(name, args);
  const calls = [{ name, arguments: args }];
  return { source: 'stepwise', calls, unknown: [], order: calls, text: '', raw: withoutOutsideMarks(transcript.slice(prompt.length)) };
}

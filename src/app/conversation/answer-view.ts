import { asMcpAppCall, metricsOf, sourcesOfCalls, type AnswerMetrics, type Source, type Step, type ToolCallRecord } from '../../internal.ts';
import type { Activity, DiagnosticEntry, Turn } from '../state/app-state.ts';
import { READ_PAGE, WEB_TOOL_NAMES } from '../state/web-research.ts';

/** Most characters of a generation's (or a choice's) raw text an answer keeps in its steps. */
const MAX_RAW_CHARS = 6000;

/** What the page shows of an answer besides its text: a view of its steps, nothing kept beside them. */
export interface AnswerView {
  /** Tool lines, in the order the calls were made (a web search or read as its own kind of line). */
  activity: Activity[];
  /** What the loop did, generation by generation, and what the tools' servers logged while it ran. */
  diagnostics: DiagnosticEntry[];
  /** Counters of a finished answer. */
  metrics?: AnswerMetrics;
  /** The loop is asking the model for a call it did not write on its own. */
  checking: boolean;
  /** Text the user watched stream in rounds that then used a tool: kept, folded above the answer. */
  drafts: string[];
  /** The numbered sources the answer's web calls brought, which its citations link to. */
  sources: Source[];
}

/**
 * The answer as the page shows it, from its steps. An answer saved before the steps were its record, or
 * read from a file, shows the tool lines it was saved with: its steps, converted from the history saved
 * beside it, hold what the model remembers, not what its lines showed (a web search's findings).
 */
export function answerView(turn: Turn): AnswerView {
  const steps = turn.steps;
  const logs = (turn.diagnostics ?? []).filter((entry) => entry.kind === 'log');
  if (!steps || turn.activity) {
    return {
      activity: turn.activity ?? [],
      diagnostics: turn.diagnostics ?? [],
      ...(turn.metrics ? { metrics: turn.metrics } : {}),
      checking: turn.checking === true,
      drafts: turn.drafts ?? [],
      sources: turn.sources ?? [],
    };
  }
  const fromSteps = sourcesOfCalls(steps.flatMap((step) => (step.kind === 'call' ? [step.record] : [])));
  // The loop's own fold of the steps (what `ChatAnswer.metrics` is): a continued answer's counts both its parts.
  const metrics = turn.state === 'done' ? metricsOf(steps) : undefined;
  return {
    activity: steps.flatMap((step) => (step.kind === 'call' ? [activityOf(step.record, turn.web === true)] : [])),
    diagnostics: [...steps.flatMap(diagnosticOf), ...logs],
    ...(metrics ? { metrics } : {}),
    checking: turn.state === 'streaming' && steps.at(-1)?.kind === 'escalate',
    drafts: [
      ...steps.flatMap((step) => (step.kind === 'turn' && step.text.trim() ? [step.text.trim()] : [])),
      // Text a stray end-of-reasoning tag turned into reasoning after it was shown (see answer-session.ts).
      ...(turn.drafts ?? []),
    ],
    // Sources are step content (each web call keeps those it brought); an answer saved before kept them on the turn.
    sources: fromSteps.length ? fromSteps : (turn.sources ?? []),
  };
}

/** A step as the answer keeps it: a generation's raw text capped, a call's raw return value left out (its result and details stay). */
export function keptStep(step: Step): Step {
  switch (step.kind) {
    case 'generation':
      return { ...step, text: step.text.slice(0, MAX_RAW_CHARS) };
    case 'choice':
      return { ...step, raw: step.raw.slice(0, MAX_RAW_CHARS) };
    case 'forced-failed':
      return { ...step, raw: step.raw.slice(0, MAX_RAW_CHARS) };
    case 'call': {
      const { value: _value, ...record } = step.record;
      return { ...step, record };
    }
    default:
      return step;
  }
}

/** Whether a call's details make its line a search of documents: what it found (passages, of documents), whatever the tool is called. */
const isPassagesSearch = (details: Record<string, unknown>) => Array.isArray(details.passages) && Array.isArray(details.documents);

/**
 * The arguments a call's line shows, where its line shows neither its result nor all its arguments (a search of
 * the attached files, a web search or read that ran): the line is drawn from the call's details instead. Undefined
 * for a call whose line shows its result.
 *
 * @param record - the call.
 * @param web - whether its answer had the web tools (`Turn.web`).
 */
export function argumentsALineShows(record: ToolCallRecord, web: boolean): Record<string, unknown> | undefined {
  const details = record.details ?? {};
  const pick = (...keys: string[]) => Object.fromEntries(keys.filter((key) => record.arguments[key] !== undefined).map((key) => [key, record.arguments[key]]));
  if (isPassagesSearch(details)) return pick('query');
  const found = details.web as { kind?: unknown } | undefined;
  if (web && WEB_TOOL_NAMES.has(record.name) && (found?.kind === 'search' || found?.kind === 'read')) return pick('query', 'queries', 'url');
  return undefined;
}

/** A call as its line shows it: a web tool's line from what it searched or read, any other tool's call with what its server showed the user. */
function activityOf(record: ToolCallRecord, web: boolean): Activity {
  const details = record.details ?? {};
  const shown = Array.isArray(details.shown) ? details.shown.filter((text): text is string => typeof text === 'string') : [];
  const app = asMcpAppCall(details.app);
  if (isPassagesSearch(details)) return passagesActivity(record);
  if (!web || !WEB_TOOL_NAMES.has(record.name)) {
    return {
      kind: 'call',
      id: record.id,
      name: record.name,
      arguments: record.arguments,
      source: record.source,
      status: record.status,
      result: record.result,
      ...(shown.length ? { shown } : {}),
      ...(app ? { app } : {}),
    };
  }
  const call = { id: record.id, name: record.name, arguments: record.arguments, result: record.result };
  const found = details.web as Activity | undefined;
  if (found && (found.kind === 'search' || found.kind === 'read')) return { ...found, source: record.source, call };
  // The web tool did not run (refused, unknown, failed before the proxy answered): a failed line says why.
  const args = record.arguments;
  return record.name === READ_PAGE
    ? { kind: 'read', url: String(args.url ?? ''), pages: [], ok: false, detail: record.result, source: record.source, call }
    : {
        kind: 'search',
        queries: [args.query, ...(Array.isArray(args.queries) ? args.queries : [])].map(String),
        ok: false,
        results: 0,
        detail: record.result,
        source: record.source,
        call,
      };
}

/** A search of the attached files as its line shows it: what it found, read by the line itself (passages-line.ts). */
function passagesActivity(record: ToolCallRecord): Activity {
  const ok = record.status === 'ok';
  return {
    kind: 'passages',
    query: String(record.arguments.query ?? ''),
    details: record.details ?? {},
    ok,
    ...(ok ? {} : { detail: record.result }),
    source: record.source,
  };
}

/** The diagnostics line a step stands for, if any. */
function diagnosticOf(step: Step): DiagnosticEntry[] {
  switch (step.kind) {
    case 'round':
      return [{ kind: 'round', round: step.round, roundKind: step.phase }];
    case 'generation':
      return [{ kind: 'raw', round: step.round, strategy: step.strategy, text: step.text }];
    case 'choice':
      return [{ kind: 'step', which: step.which, raw: step.raw, resolved: step.resolved }];
    case 'unoffered-call':
      return [{ kind: 'step', which: 'unoffered', raw: step.written, resolved: step.name }];
    case 'forced-failed':
      return [
        {
          kind: 'forced',
          event: { strategy: step.strategy, raw: step.raw, ...(step.name === undefined ? {} : { name: step.name }), reason: step.reason },
        },
      ];
    default:
      return [];
  }
}

import { failingFastPastBounds } from './bounded-template.ts';
import type { ChatMessage, ChatToolCall, ToolSchema } from './chat-types.ts';
import {
  argumentsIn,
  asciiOnly,
  type ArgumentSyntax,
  type CallSyntax,
  describeSyntax,
  ID_SLOT,
  INDEX0_SLOT,
  INDEX1_SLOT,
  jsonEnd,
  jsonIn,
  type PairSyntax,
  type SyntaxCall,
  writeCalls,
} from './call-syntax.ts';
import type { DetectedFamily } from './detect-family.ts';
import { MARKER, withCallSyntax } from './learned-family.ts';
import type { FamilyInfo, ModelFamily, TemplateDialect } from './model-family.ts';
import { inDialect, probeTemplate, type RawTemplateRender, type TemplateProbe } from './template-dialect.ts';

/**
 * What the template analysis found: the call syntax the template writes, or why none could be learned.
 * `writesCalls` is false where the template writes no calls of its own (it takes them as text, or not at all).
 */
interface CallSyntaxAnalysis {
  readonly syntax?: CallSyntax;
  readonly writesCalls: boolean;
  /** Why no syntax was learned, where the template writes calls but they could not be read apart. */
  readonly problem?: string;
  /** The marker a plain turn ends with (`<|im_end|>`, `</s>`…), where one follows it. */
  readonly endOfTurn?: string;
  /** What the template writes before a plain answer's text after the generation prompt (Harmony's `<|channel|>final<|message|>`). */
  readonly answerPrefix?: string;
  /** What a tool result is written between, from the end of the call turn to the next generation prompt. */
  readonly results?: { readonly before: string; readonly after: string };
  /** What a turn's reasoning is written between, where the template writes it back. */
  readonly reasoning?: { readonly open: string; readonly close: string };
}

const NAME_A = 'nexus_probe_alpha';
const NAME_B = 'nexus_probe_beta';
const tool = (name: string): ToolSchema => ({
  type: 'function',
  function: {
    name,
    description: 'A probe.',
    parameters: {
      type: 'object',
      properties: { probe_place: { type: 'string' }, probe_town: { type: 'string' }, probe_days: { type: 'integer' } },
      required: [],
    },
  },
});
const TOOLS = [tool(NAME_A), tool(NAME_B)];
const QUESTION: ChatMessage[] = [{ role: 'user', content: 'nexus-probe-question' }];
const PLAIN = 'nexus-probe-plain';

// Ids of letters only: digits in a piece are read as the call's position.
const IDS = ['kQzWxEcRv', 'mQzWxEcRv'];

/** The argument sets the analysis writes, each telling one thing apart. */
const ARGS = {
  mixed: { probe_place: 'Zanzíbar', probe_days: 37 },
  second: { probe_town: 'Quito' },
  none: {},
  string: { probe_place: 'Zanzibar' },
  other: { probe_days: 37 },
  twoStrings: { probe_place: 'Zanzibar', probe_town: 'Quito' },
  nested: { probe_place: 'Zanzibar', probe_days: [37, { probe_town: 'Quito' }] },
} as const;

function call(name: string, args: Readonly<Record<string, unknown>>, i: number): ChatToolCall {
  return { id: IDS[i] ?? `call_${i}`, type: 'function', function: { name, arguments: { ...args } } };
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function commonSuffix(a: string, b: string, limit = Math.min(a.length, b.length)): number {
  let i = 0;
  while (i < limit && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
  return i;
}

/** A piece with the calls' ids and the call's position replaced by their slots. */
function slotted(piece: string, id: string | undefined, index: number, withIndex: 0 | 1 | undefined): string {
  let out = IDS.reduce((text, each) => text.replaceAll(each, ID_SLOT), id ? piece.replaceAll(id, ID_SLOT) : piece);
  if (withIndex !== undefined) out = out.replace(new RegExp(`(?<!\\d)${index + withIndex}(?!\\d)`, 'g'), withIndex ? INDEX1_SLOT : INDEX0_SLOT);
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Where the JSON object equal to `args` is written in `text` from `from`, and its layout. */
/** Spaces per level, and the levels a multi-line JSON object starts at: from its first key's line and its closing brace's. */
function indentOf(written: string): { width: number; depth: number } {
  const keyIndent = /\n( *)"/.exec(written)?.[1]?.length ?? 0;
  const closeIndent = /\n( *)\}$/.exec(written)?.[1]?.length ?? 0;
  const width = Math.max(1, keyIndent - closeIndent);
  return { width, depth: Math.round(closeIndent / width) };
}

function findJson(
  text: string,
  from: number,
  args: unknown,
): { start: number; end: number; layout: 'spaced' | 'compact'; ascii: boolean; indent?: { width: number; depth: number } } | undefined {
  for (let i = text.indexOf('{', from); i >= 0; i = text.indexOf('{', i + 1)) {
    const end = jsonEnd(text, i);
    if (end < 0) continue;
    const written = text.slice(i, end);
    try {
      if (!deepEqual(JSON.parse(written), args)) continue;
    } catch {
      continue;
    }
    const ascii = /\\u00ed/.test(written);
    const layout = written === jsonIn(args, 'compact') || written === asciiOnly(jsonIn(args, 'compact')) ? 'compact' : 'spaced';
    return { start: i, end, layout, ascii, ...(written.includes('\n') ? { indent: indentOf(written) } : {}) };
  }
  return undefined;
}

class Renders {
  constructor(
    private readonly render: RawTemplateRender,
    private readonly dialect: TemplateDialect,
    private readonly family: ModelFamily,
  ) {}

  async text(messages: ChatMessage[], addGenerationPrompt: boolean): Promise<string> {
    const shaped = inDialect(this.dialect, this.family, messages, { tools: TOOLS, addGenerationPrompt, enableThinking: false });
    return this.render(shaped.messages, shaped.args);
  }

  /** The conversation with one assistant turn making `calls`, that turn last. */
  turn(calls: ChatToolCall[]): Promise<string> {
    return this.text([...QUESTION, { role: 'assistant', content: '', tool_calls: calls }], false);
  }
}

/** `at`, or the start of the marker (`<…>`, `[…]`) it falls inside: texts that part inside a marker part at its start. */
function markerBoundary(text: string, at: number): number {
  for (const [open, close] of [
    ['<', '>'],
    ['[', ']'],
  ] as const) {
    const start = text.lastIndexOf(open, at - 1);
    if (start >= 0 && start < at && !/[\s]/.test(text.slice(start, at)) && !text.slice(start, at).includes(close)) return start;
  }
  return at;
}

/** `at`, or the end of the marker it falls inside. */
function markerEnd(text: string, at: number): number {
  const start = markerBoundary(text, at);
  if (start === at) return at;
  const close = text[start] === '<' ? '>' : ']';
  const end = text.indexOf(close, at);
  return end < 0 || /\s/.test(text.slice(at, end)) ? at : end + 1;
}

/**
 * The text a turn's calls take in a rendering: from where two plain turns' texts part (the turn's own text
 * starts there), to where the turn's end begins (what follows a plain turn's text).
 */
function callRegion(rendered: string, plain: { a: string; b: string; tail: string }): string {
  const start = markerBoundary(rendered, Math.min(commonPrefix(plain.a, rendered), commonPrefix(plain.b, rendered)));
  const end = markerEnd(rendered, rendered.length - commonSuffix(rendered, plain.a, Math.min(plain.tail.length, rendered.length - start)));
  return rendered.slice(start, end);
}

/**
 * Learns a template's call syntax by rendering probe conversations through it and comparing the
 * renderings (as llama.cpp's differential template analysis does): two tool names, argument sets of
 * each kind, one and two calls a turn. The pieces around the name and the arguments are what the
 * template writes; the result is checked by writing every probe call back and comparing byte for byte.
 */
async function analyseCallSyntax(render: RawTemplateRender, dialect: TemplateDialect, family: ModelFamily): Promise<CallSyntaxAnalysis> {
  if (dialect.calls !== 'tool_calls') return nativeCallsFail(render, dialect, family);
  const renders = new Renders(render, dialect, family);
  // The probe's ids are nine letters: every template takes them, and no digit in them reads as a position.
  const idOf = (i: number) => IDS[i] as string;
  try {
    const plainTurn = (content: string) => renders.text([...QUESTION, { role: 'assistant', content }], false);
    const a = await plainTurn(PLAIN);
    const plain = { a, b: await plainTurn(`Q${PLAIN}`), tail: a.slice(a.lastIndexOf(PLAIN) + PLAIN.length) };
    const region = async (calls: ChatToolCall[]) => callRegion(await renders.turn(calls), plain);
    const prompt = await renders.text(QUESTION, true);
    const answerPrefix = a.slice(markerBoundary(a, commonPrefix(prompt, a)), commonPrefix(a, plain.b));
    const endOfTurn = plain.tail.match(MARKER)?.[0];
    const results = await resultWrapper(renders, prompt);
    const reasoning = await reasoningMarkers(renders, a);
    const turn = {
      ...(answerPrefix ? { answerPrefix } : {}),
      ...(endOfTurn ? { endOfTurn } : {}),
      ...(results ? { results } : {}),
      ...(reasoning ? { reasoning } : {}),
    };
    const one = await region([call(NAME_A, ARGS.mixed, 0)]);
    const nameAt = one.indexOf(NAME_A);
    if (nameAt < 0) return { writesCalls: false, ...turn };
    const json = findJson(one, nameAt + NAME_A.length, ARGS.mixed);
    const argsSyntax: Pairs | string = json
      ? {
          syntax: { kind: 'json', layout: json.layout, ...(json.ascii ? { ascii: true } : {}), ...(json.indent ? { indent: json.indent } : {}) },
          head: '',
          tail: '',
        }
      : await pairSyntax(region);
    if (typeof argsSyntax === 'string') return { writesCalls: true, problem: argsSyntax, ...turn };
    // The call alone: what is before the name, between name and arguments, and after them.
    const argsText = json ? one.slice(json.start, json.end) : undefined;
    const beforeName = one.slice(0, nameAt);
    const afterName = one.slice(nameAt + NAME_A.length);
    const nameClose = argsText ? afterName.slice(0, afterName.indexOf(argsText)) : argsSyntax.head;
    const afterArgs = argsText ? afterName.slice(nameClose.length + argsText.length) : argsSyntax.tail;
    const name = beforeName.endsWith('"') ? 'json' : 'raw';
    const ids = dialect.callIds === 'alnum9' ? 'alnum9' : 'any';
    const single = { beforeName, nameClose, afterArgs };
    const pieces = await splitCalls(region, single, argsSyntax, idOf, json !== undefined);
    const syntax: CallSyntax = Object.freeze({ ...pieces, name, ids, arguments: argsSyntax.syntax });
    const mismatch = await verify(syntax, region);
    return mismatch ? { writesCalls: true, problem: mismatch, ...turn } : { writesCalls: true, syntax, ...turn };
  } catch (error) {
    return { writesCalls: true, problem: `its call turns fail to render (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
}

type Region = (calls: ChatToolCall[]) => Promise<string>;

/**
 * For a template the probe gives calls as text: whether it has calls of its own that fail to render (Kimi K2
 * Instruct's uses `list.append`, which `@huggingface/jinja` lacks), or none at all (it ignores them).
 */
async function nativeCallsFail(render: RawTemplateRender, dialect: TemplateDialect, family: ModelFamily): Promise<CallSyntaxAnalysis> {
  const renders = new Renders(render, { ...dialect, calls: 'tool_calls' }, family);
  try {
    await renders.turn([call(NAME_A, ARGS.mixed, 0)]);
    return { writesCalls: false };
  } catch (error) {
    const why = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    return { writesCalls: true, problem: `has call turns of its own that fail to render in the Jinja engine transformers.js uses (${why})` };
  }
}

const RESULT = 'nexus-probe-result';
const THOUGHT = 'nexus-probe-thought';

/** The text around a tool result: after the call turn it answers, up to the next generation prompt. */
async function resultWrapper(renders: Renders, prompt: string): Promise<CallSyntaxAnalysis['results']> {
  const made = call(NAME_A, ARGS.mixed, 0);
  const turn = await renders.turn([made]);
  const answered = await renders.text(
    [...QUESTION, { role: 'assistant', content: '', tool_calls: [made] }, { role: 'tool', content: RESULT, tool_call_id: made.id, name: NAME_A }],
    true,
  );
  const at = answered.indexOf(RESULT);
  if (at < 0) return undefined;
  const from = markerBoundary(answered, Math.min(commonPrefix(turn, answered), at));
  const end = at + RESULT.length;
  return { before: answered.slice(from, at), after: answered.slice(end, answered.length - commonSuffix(answered, prompt, answered.length - end)) };
}

/** The markers a turn's reasoning is written between, where the template writes it back at all. */
async function reasoningMarkers(renders: Renders, plain: string): Promise<CallSyntaxAnalysis['reasoning']> {
  const text = await renders.text([...QUESTION, { role: 'assistant', content: PLAIN, reasoning_content: THOUGHT } as ChatMessage], false);
  const at = text.indexOf(THOUGHT);
  const content = text.indexOf(PLAIN, at);
  if (at < 0 || content < 0) return undefined;
  const from = markerBoundary(text, Math.min(commonPrefix(plain, text), at));
  return { open: text.slice(from, at), close: text.slice(at + THOUGHT.length, content) };
}
interface Pairs {
  syntax: ArgumentSyntax;
  head: string;
  tail: string;
}

/** Per-argument pairs, learned from the same call with no, one string, one other and two string arguments. */
async function pairSyntax(region: Region): Promise<Pairs | string> {
  const after = async (args: Readonly<Record<string, unknown>>) => {
    const text = await region([call(NAME_A, args, 0)]);
    const at = text.indexOf(NAME_A);
    return at < 0 ? '' : text.slice(at + NAME_A.length);
  };
  const none = await after(ARGS.none);
  const variants = { string: await after(ARGS.string), other: await after(ARGS.other), two: await after(ARGS.twoStrings) };
  if (!variants.string.includes('Zanzibar') || !variants.other.includes('37')) return 'writes call arguments in a form neither JSON nor one pair per argument';
  // Where the arguments go: where the renderings part, moved back to the start of a marker they part inside.
  const p = markerBoundary(none, Math.min(...Object.values(variants).map((v) => commonPrefix(none, v))));
  const q = Math.min(...Object.values(variants).map((v) => commonSuffix(none, v, none.length - p)));
  const middle = (v: string) => v.slice(p, v.length - q);
  const pair = (text: string, key: string, value: string): PairSyntax | undefined => {
    const k = text.indexOf(key);
    const v = text.indexOf(value, k + key.length);
    if (k < 0 || v < 0) return undefined;
    return { before: text.slice(0, k), between: text.slice(k + key.length, v), after: text.slice(v + value.length) };
  };
  const string = pair(middle(variants.string), 'probe_place', 'Zanzibar');
  const other = pair(middle(variants.other), 'probe_days', '37');
  if (!string || !other) return 'writes call arguments in a form neither JSON nor one pair per argument';
  const first = `${string.before}probe_place${string.between}Zanzibar${string.after}`;
  const second = `${string.before}probe_town${string.between}Quito${string.after}`;
  const both = middle(variants.two);
  if (!both.startsWith(first) || !both.endsWith(second)) return 'writes two arguments in a way one argument does not show';
  const joiner = both.slice(first.length, both.length - second.length);
  const nestedText = await after(ARGS.nested);
  const layout = nestedText.includes(jsonIn(ARGS.nested.probe_days, 'compact')) ? 'compact' : 'spaced';
  // Keys in the order given, or sorted (Gemma's templates walk them with `dictsort`): the mixed set is given unsorted.
  const mixed = await after(ARGS.mixed);
  const order = mixed.indexOf('probe_days') < mixed.indexOf('probe_place') ? 'sorted' : 'given';
  return { syntax: { kind: 'pairs', string, other, joiner, layout, order }, head: none.slice(0, p), tail: none.slice(p) };
}

/**
 * Splits the single call's surroundings into what opens the turn's calls and what opens each call (and
 * likewise at the end), from a turn with two calls; the call's id and position become slots.
 */
async function splitCalls(
  region: Region,
  single: { beforeName: string; nameClose: string; afterArgs: string },
  pairs: Pairs,
  idOf: (i: number) => string,
  isJson: boolean,
): Promise<Pick<CallSyntax, 'sectionOpen' | 'callOpen' | 'nameClose' | 'callClose' | 'joiner' | 'sectionClose'>> {
  const id0 = idOf(0);
  const alone = {
    sectionOpen: '',
    callOpen: slotted(single.beforeName, id0, 0, undefined),
    nameClose: slotted(single.nameClose, id0, 0, undefined),
    callClose: slotted(single.afterArgs, id0, 0, undefined),
    sectionClose: '',
  };
  let two: string;
  try {
    two = await region([call(NAME_A, ARGS.mixed, 0), call(NAME_B, ARGS.second, 1)]);
  } catch {
    return alone;
  }
  const a = two.indexOf(NAME_A);
  const b = two.indexOf(NAME_B, a);
  if (a < 0 || b < 0) return alone;
  // The first call's arguments as written, and the second's.
  const argsText = (args: Readonly<Record<string, unknown>>, from: number) => {
    if (isJson) {
      const found = findJson(two, from, args);
      return found ? { start: found.start, end: found.end } : undefined;
    }
    const text = argumentsIn({ arguments: pairs.syntax } as CallSyntax, args);
    const start = two.indexOf(text, from);
    return start < 0 ? undefined : { start, end: start + text.length };
  };
  const first = argsText(ARGS.mixed, a + NAME_A.length);
  const second = argsText(ARGS.second, b + NAME_B.length);
  if (!first || !second) return alone;
  const t0 = two.slice(0, a);
  const nameClose1 = two.slice(a + NAME_A.length, first.start);
  const between = two.slice(first.end, b);
  const nameClose2 = two.slice(b + NAME_B.length, second.start);
  const t2 = two.slice(second.end);
  // The position counted from 0 or 1, where the second call's pieces differ from the first's only there.
  const ways = [undefined, 0, 1] as const;
  const way = ways.findIndex((w) => slotted(nameClose1, idOf(0), 0, w) === slotted(nameClose2, idOf(1), 1, w));
  if (way < 0) return alone;
  const counted = ways[way];
  const nameClose = slotted(nameClose1, idOf(0), 0, counted);
  const open0 = slotted(t0, idOf(0), 0, counted);
  const open1 = slotted(between, idOf(1), 1, counted);
  // Pieces part where markers do: a shared tail that starts inside one (`|><|tool_call_begin|>`) starts after it.
  const shared = commonSuffix(open0, open1);
  const callOpenLength = shared - (markerEnd(open0, open0.length - shared) - (open0.length - shared));
  const callOpen = open0.slice(open0.length - callOpenLength);
  const sectionOpen = open0.slice(0, open0.length - callOpenLength);
  const closeAndJoin = open1.slice(0, open1.length - callOpenLength);
  const end = slotted(t2, idOf(1), 1, counted);
  // The call's own close is what the first call's close and the last call's share, re-slotted for the first call.
  const closeLength = markerBoundary(closeAndJoin, commonPrefix(closeAndJoin, end));
  const callClose = closeAndJoin.slice(0, closeLength);
  return {
    sectionOpen,
    callOpen,
    nameClose,
    callClose,
    joiner: closeAndJoin.slice(closeLength),
    sectionClose: end.slice(closeLength),
  };
}

/** Writes the probe calls back in the learned syntax: undefined where each matches the template byte for byte, else the difference. */
async function verify(syntax: CallSyntax, region: Region): Promise<string | undefined> {
  const cases: SyntaxCall[][] = [[{ name: NAME_A, args: ARGS.mixed, id: IDS[0] as string }], [{ name: NAME_B, args: ARGS.twoStrings, id: IDS[0] as string }]];
  if (syntax.joiner !== undefined)
    cases.push([
      { name: NAME_A, args: ARGS.mixed, id: IDS[0] as string },
      { name: NAME_B, args: ARGS.second, id: IDS[1] as string },
    ]);
  for (const calls of cases) {
    const expected = await region(calls.map((c, i) => call(c.name, c.args, i)));
    const written = writeCalls(syntax, calls);
    if (written !== expected) {
      const at = commonPrefix(written, expected);
      return `writes calls in a way the analysis could not take apart (the template writes …${JSON.stringify(expected.slice(Math.max(0, at - 40), at + 60))}; learned …${JSON.stringify(written.slice(Math.max(0, at - 40), at + 60))})`;
    }
  }
  return undefined;
}

/** What adopting a template settled: the profile the loop speaks, the probe, and the analysis behind them. */
export interface AdoptedTemplate {
  readonly family: ModelFamily;
  readonly probe: TemplateProbe;
  readonly analysis: CallSyntaxAnalysis;
  /** The template's problem, where it cannot hold a tool conversation the loop can read. */
  readonly problem?: string;
  /** How calls are written for this model, in one line. */
  readonly calls: string;
}

/** Words outside markers before every plain answer (a channel header): the reader would see them. */
function wordsBeforeAnswers(prefix: string | undefined): string | undefined {
  if (!prefix) return undefined;
  const words = prefix
    .replace(new RegExp(MARKER, 'g'), ' ')
    .replace(/<\/?think>/g, ' ')
    .trim();
  return words ? prefix : undefined;
}

/**
 * Probes a template and learns its call syntax; the profile the loop speaks follows from both. A
 * family profile that writes a call exactly as the template does is kept; one that does not (or the
 * generic one) gives way to the learned syntax. A template whose calls cannot be learned and that no
 * profile knows, or whose answers need a header the loop does not write, is a problem, named.
 */
export async function adoptTemplate(given: RawTemplateRender, detected: ModelFamily, { learn = true } = {}): Promise<AdoptedTemplate> {
  // A render past a bound ends the analysis' renders at once: the template is then a problem, named.
  const render = failingFastPastBounds(given);
  let probe = await probeTemplate(render, detected);
  const settled = probe.shapes['a call and its result'] === 'ok';
  const analysis: CallSyntaxAnalysis = settled ? await analyseCallSyntax(render, probe.dialect, detected) : { writesCalls: false };
  let family = detected;
  if (learn && analysis.syntax && !speaksSyntax(detected, analysis.syntax)) {
    family = withCallSyntax(detected, analysis.syntax, analysis.endOfTurn ? [analysis.endOfTurn] : []);
    probe = await probeTemplate(render, family);
  }
  const headed = wordsBeforeAnswers(analysis.answerPrefix);
  const problem =
    probe.problem ??
    (headed ? `writes ${JSON.stringify(headed)} before every answer (a channel header the loop does not read)` : undefined) ??
    (analysis.problem && detected.id === 'generic' ? analysis.problem : undefined);
  const around = [
    analysis.results ? `results come back as ${JSON.stringify(`${analysis.results.before}…${analysis.results.after}`)}` : '',
    analysis.reasoning ? `reasoning written as ${JSON.stringify(`${analysis.reasoning.open}…${analysis.reasoning.close}`)}` : '',
  ].filter(Boolean);
  const written = analysis.syntax
    ? `calls written as ${family.syntax}${family !== detected ? ' (learned from its template)' : speaksSyntax(detected, analysis.syntax) ? ` (the ${detected.label} profile, which matches its template)` : ` (the ${detected.label} profile, as chosen; its template writes ${describeSyntax(analysis.syntax)})`}`
    : `calls written as ${detected.syntax} (the ${detected.label} profile${analysis.writesCalls ? `; its template's own could not be learned: ${analysis.problem ?? 'no name written'}` : '; its template writes no calls of its own'})`;
  // A refused model is offered no tools: it names the refusal, never a call syntax it will not be asked to write.
  const calls = problem ? refusedCalls(problem) : [written, ...around].join('; ');
  return { family, probe, analysis, calls, ...(problem ? { problem } : {}) };
}

/** What a refused model's report says of its calls: none, and why (`templateProblem`). */
function refusedCalls(problem: string): string {
  return `no calls: refused, its chat template ${problem}`;
}

/** Refuses a loaded model tools for `problem`, found after its template was adopted: its report says so, not a call syntax. */
export function refuseTools(info: { templateProblem?: string; calls?: string }, problem: string): void {
  info.templateProblem = problem;
  info.calls = refusedCalls(problem);
}

/**
 * Whether a profile writes the probe calls exactly as the learned syntax does (one call, and two where it
 * writes two); an end token the template writes after the calls (Gemma's `<|tool_response>`) is the
 * model's to write, which the profile has among its end tokens.
 */
function speaksSyntax(family: ModelFamily, syntax: CallSyntax): boolean {
  const one = [{ name: NAME_A, args: ARGS.mixed }];
  const two = [...one, { name: NAME_B, args: ARGS.second }];
  const byFamily = (calls: typeof two) => (family.formatCalls ? family.formatCalls(calls) : calls.map((c) => family.formatCall(c.name, c.args)).join('\n'));
  const learned = (calls: typeof two) => {
    const text = writeCalls(syntax, calls);
    const end = family.endTokens.find((t) => t && text.endsWith(t));
    return end ? text.slice(0, -end.length) : text;
  };
  if (byFamily(one) !== learned(one)) return false;
  return syntax.joiner === undefined || !family.parallelCalls || byFamily(two) === learned(two);
}

/** The detected family and its report, as adopting the template settled them. */
export function adoptedFamily(detected: DetectedFamily, adopted: AdoptedTemplate): DetectedFamily {
  const learned = adopted.family !== detected.family;
  const info: FamilyInfo = {
    ...detected.info,
    ...(learned ? { label: adopted.family.label, callSyntax: adopted.family.callSyntax } : {}),
    dialect: adopted.probe.dialect,
    templateShapes: adopted.probe.shapes,
    calls: adopted.calls,
    ...(adopted.problem ? { templateProblem: adopted.problem } : {}),
  };
  return { family: adopted.family, info };
}

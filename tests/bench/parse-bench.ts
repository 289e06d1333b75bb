import { loadFixture } from '../../src/toolcalls/__fixtures__/load.ts';
import { FIXTURES } from '../../src/toolcalls/__fixtures__/manifest.ts';
import { UPSTREAM_CASES, UPSTREAM_TOOLS } from '../../src/toolcalls/__fixtures__/upstream-cases.ts';
import { beginsInThinking } from '../../src/toolcalls/strip-thinking.ts';
import { parseToolCalls } from '../../src/toolcalls/parse-tool-calls.ts';
import { ToolCallStreamFilter } from '../../src/toolcalls/stream-filter.ts';

/** What {@link benchParse} measured. Throughputs are in MB (10^6 bytes of UTF-8) per second. */
export interface BenchResult {
  /** Size of the mixed input, in UTF-8 bytes. */
  inputBytes: number;
  /** `parseToolCalls` on the input. */
  parseMBps: number;
  /** `JSON.parse` of the same text as one JSON string literal: the floor any scan of the text is compared with. */
  jsonParseMBps: number;
  /** `parseMBps / jsonParseMBps`. */
  ratio: number;
  /** The streaming filter fed the input in 16-character chunks. */
  streamMBps: number;
  /** Calls found in the input (a check that the parser did real work). */
  calls: number;
  /** Largest `stats.maxHeldBack` over every fixture fed one character at a time. */
  maxHeldBack: number;
  /** Largest `stats.maxMarkerHeld` (undecided-marker phase only) over the same runs. */
  maxMarkerHeld: number;
}

/** Options of {@link benchParse}. */
export interface BenchOptions {
  /** Approximate input size in bytes; default 1 MB. */
  targetBytes?: number;
  /** Timed runs per measurement; the fastest counts (least disturbed by GC and JIT warm-up). */
  runs?: number;
}

const PROSE =
  'The forecast for the coming days looks mixed: a band of rain crosses the region on Tuesday, ' +
  'clearing to sunny spells by Thursday with highs around 18°C. Pack a light jacket [1], and check ' +
  'the local office hours before travelling (they close early on public holidays).';

/**
 * Throughput of the parser against `JSON.parse` over a ~1 MB mix of every parser fixture and
 * prose, plus the streaming filter's hold-back over all fixtures. Node only (reads the fixture
 * files); run it with `tsx` or from a test.
 */
export function benchParse(options: BenchOptions = {}): BenchResult {
  const target = options.targetBytes ?? 1_000_000;
  const runs = options.runs ?? 5;
  const input = buildInput(target);
  const bytes = new TextEncoder().encode(input).length;

  let calls = 0;
  const parseSeconds = fastest(runs, () => {
    calls = parseToolCalls(input).calls.length;
  });
  const literal = JSON.stringify(input);
  const jsonSeconds = fastest(runs, () => {
    JSON.parse(literal);
  });
  const streamSeconds = fastest(Math.max(1, Math.floor(runs / 2)), () => {
    const filter = new ToolCallStreamFilter();
    for (let i = 0; i < input.length; i += 16) filter.push(input.slice(i, i + 16));
    filter.end();
  });

  let maxHeldBack = 0;
  let maxMarkerHeld = 0;
  for (const fixture of FIXTURES) {
    const filter = new ToolCallStreamFilter({
      ...(fixture.tools === undefined ? {} : { tools: fixture.tools }),
      startsInThinking: fixture.startsInThinking ?? false,
    });
    for (const ch of loadFixture(fixture.file)) filter.push(ch);
    filter.end();
    maxHeldBack = Math.max(maxHeldBack, filter.stats.maxHeldBack);
    maxMarkerHeld = Math.max(maxMarkerHeld, filter.stats.maxMarkerHeld);
  }
  // The other families' outputs, with and without a tool list.
  for (const c of UPSTREAM_CASES) {
    for (const tools of [c.tools === null ? undefined : (c.tools ?? UPSTREAM_TOOLS), undefined]) {
      const filter = new ToolCallStreamFilter({ ...(tools === undefined ? {} : { tools }), startsInThinking: beginsInThinking(c.raw) });
      for (const ch of c.raw) filter.push(ch);
      filter.end();
      maxHeldBack = Math.max(maxHeldBack, filter.stats.maxHeldBack);
      maxMarkerHeld = Math.max(maxMarkerHeld, filter.stats.maxMarkerHeld);
    }
  }

  const parseMBps = bytes / 1e6 / parseSeconds;
  const jsonParseMBps = bytes / 1e6 / jsonSeconds;
  return {
    inputBytes: bytes,
    parseMBps,
    jsonParseMBps,
    ratio: parseMBps / jsonParseMBps,
    streamMBps: bytes / 1e6 / streamSeconds,
    calls,
    maxHeldBack,
    maxMarkerHeld,
  };
}

/**
 * Fixtures that end their output mid-value. Each is right on its own, but followed by more
 * text their open string or object would run on into the next fixture, so they are left out of
 * the concatenation (they are still in the hold-back measurement).
 */
const OPEN_ENDED = new Set(['hermes-unterminated.txt', 'truncated-string.txt']);

/** Every self-contained fixture followed by a paragraph of prose, repeated to about `targetBytes`. */
export function buildInput(targetBytes: number): string {
  const unit = FIXTURES.filter((f) => !OPEN_ENDED.has(f.file))
    .map((f) => `${loadFixture(f.file)}\n\n${PROSE}\n\n`)
    .join('');
  const parts: string[] = [];
  let size = 0;
  while (size < targetBytes) {
    parts.push(unit);
    size += unit.length;
  }
  return parts.join('');
}

function fastest(runs: number, body: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    body();
    best = Math.min(best, performance.now() - start);
  }
  return Math.max(best, 0.001) / 1000;
}

/** Inputs built to make a careless scanner rescan: unclosed values, openers without closers, markers in bulk. */
export const PATHOLOGICAL: Record<string, string> = {
  prose: 'The quick brown fox jumps over the lazy dog, [1] and <b>bold</b> `code` too. ',
  'open braces': '{',
  'open key strings': '{"a',
  'data objects': '{"name": "Alice", "age": 3} ',
  calls: '{"name": "get_weather", "arguments": {"city": "Paris"}}\n',
  'unterminated calls, one per line': '{"name": "get_weather", "arguments": {"city": "Paris"}\n',
  'tool_call openers': '<tool_call>',
  'tool_call with open JSON': '<tool_call>{"name": "x", "arguments": {',
  'xml functions without closers': '<function=web_search><parameter=q>rust',
  'mistral markers': '[TOOL_CALLS]',
  'mistral names without args': '[TOOL_CALLS]get_weather ',
  'python tags': '<|python_tag|>{',
  'json fences': '```json\n{\n',
  'think tags': '<think>a</think>b',
  'array openers': '[{',
  'half markers': '<tool_ca[TOOL_<|python',
  whitespace: ' \n\t',
  'xml values without closers': '<tool_call><function=f><parameter=a>x </function> ',
  'minimax invokes without closers': '<minimax:tool_call><invoke name="f"><parameter name="a">x',
  'glm values without closers': '<tool_call>f<arg_key>a</arg_key><arg_value>x ',
  'gemma calls without closers': '<start_function_call>call:f{a:<escape>x ',
  'gemma 4 calls': '<|tool_call>call:f{a:<|"|>x<|"|>}<tool_call|>',
  'lfm2 openers': '<|tool_call_start|>[f(a="x"',
  'pythonic lists': '[f(a=1), g(b="x")]\n',
  'kimi sections without closers': '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": ',
  'deepseek without closers': '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{"a": 1}\n```',
  'harmony headers': '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>',
  'functionary recipients': '>>>f\n{"a": 1}\n',
  'blockquote lines': '> <tool_call>{"name": "f"}</tool_call>\n',
  'inline code with markers': 'see `<tool_call> and <function=x>` here ',
  'reasoning forms': '[THINK]a[/THINK]<|channel>thought b<channel|>',
};

function fastestMs(body: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    body();
    best = Math.min(best, performance.now() - start);
  }
  // Below ten milliseconds a run measures timer, JIT and GC noise (and, on a shared machine,
  // other processes), not the input; a quadratic rescan of the large input takes seconds.
  return Math.max(best, 10);
}

function streamAll(input: string): void {
  const filter = new ToolCallStreamFilter();
  for (let i = 0; i < input.length; i += 16) filter.push(input.slice(i, i + 16));
  filter.end();
}

/**
 * How the cost grows with the input on inputs built to make a careless scanner rescan: the time
 * for 8 times the input over the time for the input (about 8 when linear, about 64 when
 * quadratic), for the parser and for the streaming filter.
 */
export function benchScaling(): { name: string; parseRatio: number; streamRatio: number }[] {
  return Object.entries(PATHOLOGICAL).map(([name, unit]) => {
    const small = unit.repeat(Math.ceil(32_000 / unit.length));
    const large = unit.repeat(Math.ceil(256_000 / unit.length));
    for (const input of [small, large]) {
      parseToolCalls(input);
      streamAll(input);
    }
    return {
      name,
      parseRatio: fastestMs(() => parseToolCalls(large)) / fastestMs(() => parseToolCalls(small)),
      streamRatio: fastestMs(() => streamAll(large)) / fastestMs(() => streamAll(small)),
    };
  });
}

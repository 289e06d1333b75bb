import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { BoundedTemplate, TEMPLATE_LIMITS, TemplateLimitError } from './bounded-template.ts';

const qwen3 = readFileSync(new URL('../../tests/fixtures/templates/qwen3-0.6b.jinja', import.meta.url), 'utf8');
const conversation = {
  messages: [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
    { role: 'tool', content: '{"c": 21}' },
  ],
  tools: [
    { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  ],
  add_generation_prompt: true,
};

/** What a render throws: the error, or nothing. */
function thrown(render: () => unknown): unknown {
  try {
    render();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a chat template, rendered within bounds (issue 67, L7)', () => {
  it('renders a real template exactly as the renderer transformers.js uses does', () => {
    expect(new BoundedTemplate(qwen3).render(conversation)).toBe(new Template(qwen3).render(conversation));
  });

  it('stops a template that loops without end, counting its steps, and says which bound it passed', () => {
    const loop = new BoundedTemplate('{% for i in range(100000) %}{% for j in range(100000) %}{% set x = i %}{% endfor %}{% endfor %}', {
      limits: { steps: 50_000 },
    });
    const error = thrown(() => loop.render({ messages: [] }));
    expect(error).toBeInstanceOf(TemplateLimitError);
    expect((error as TemplateLimitError).limit).toBe('steps');
    expect((error as Error).message).toMatch(/took too many steps, past its bound of 50,000 \(steps\)/);
  });

  it('stops a render past its time, on the clock it is given', () => {
    let t = 0;
    const slow = new BoundedTemplate('{% for i in range(100000) %}{% set x = i %}{% endfor %}', { limits: { ms: 100 }, now: () => (t += 1) });
    expect((thrown(() => slow.render({})) as TemplateLimitError).limit).toBe('ms');
  });

  it('refuses a range() past its bound before making it, and a text that doubles past its bound', () => {
    const huge = new BoundedTemplate('{% for i in range(10**9) %}x{% endfor %}');
    expect((thrown(() => huge.render({})) as TemplateLimitError).message).toMatch(/asked range\(\) for 1000000000 items, past its bound of 100,000/);
    const doubling = new BoundedTemplate('{% set ns = namespace(s="xy") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}');
    expect((thrown(() => doubling.render({})) as TemplateLimitError).limit).toBe('chars');
    // range() as Jinja's otherwise: a stop, a start, a step, and none past the stop.
    expect(new BoundedTemplate('{{ range(3) }}|{{ range(2, 8, 3) }}|{{ range(5, 0, -2) }}').render({})).toBe('[0, 1, 2]|[2, 5]|[5, 3, 1]');
  });

  it("cuts a template's own error short, whatever text it built, and refuses a source past its bound", () => {
    const raising = new BoundedTemplate('{{ raise_exception("no " * 1) ~ "" }}{% set ns = namespace(s="") %}');
    expect(thrown(() => raising.render({}))).toBeInstanceOf(Error);
    const long = new BoundedTemplate(
      '{% set ns = namespace(s="ab") %}{% for i in range(18) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ raise_exception(ns.s) }}',
    );
    const error = thrown(() => long.render({})) as Error;
    expect(error.message.length).toBeLessThanOrEqual(501);
    expect(() => new BoundedTemplate('x'.repeat(TEMPLATE_LIMITS.sourceChars + 1))).toThrow(TemplateLimitError);
  });

  it('keeps each render to its own budget: one render past its bound leaves the next one whole', () => {
    const template = new BoundedTemplate('{% for i in range(n) %}{{ i }}{% endfor %}', { limits: { steps: 5_000 } });
    expect(thrown(() => template.render({ n: 100_000 }))).toBeInstanceOf(TemplateLimitError);
    expect(template.render({ n: 3 })).toBe('012');
    // Outside a bounded render the interpreter runs as it did.
    expect(new Template('{% for i in range(n) %}{{ i }}{% endfor %}').render({ n: 3 })).toBe('012');
  });
});

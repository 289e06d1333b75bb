import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasPlaceholderValues } from '../toolcalls/call-shape.ts';
import { parseToolCalls } from '../toolcalls/index.ts';
import { FAMILY_MODULES, MODEL_FAMILIES, familyById } from './families.ts';
import type { FamilyId } from './model-family.ts';
import { fixChatTemplate } from './model-family.ts';

const families = Object.values(MODEL_FAMILIES);
// Prefixed: names such as `fn` or `function_name` are placeholders the parser rejects on purpose.
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/).map((s) => `get_${s}`);
const value = fc.oneof(
  // FunctionGemma's parsers read `<escape>42<escape>` as 42 (as vLLM's do): strings that look like
  // literals are left out, since the schema's coercion decides their type anyway.
  fc.string({ maxLength: 12 }).filter((s) => !/[<>\\]/.test(s) && s.trim() === s && s !== '' && !/^(?:-?[\d.]+(?:e[+-]?\d+)?|true|false|null|none)$/i.test(s)),
  fc.integer({ min: -1000, max: 1000 }),
  fc.boolean(),
);
// Filler values (`{}`, `<city>`, `YOUR_CITY`) mark a call copied from a prompt; the parser drops those on purpose.
const args = fc.dictionary(fc.stringMatching(/^[a-z][a-z_]{0,8}$/), value, { maxKeys: 3 }).filter((a) => !hasPlaceholderValues(a));

describe('model-family profiles', () => {
  it.each(families.map((f) => [f.id, f] as const))('%s: the parser reads back every call the profile writes', (_id, family) => {
    fc.assert(
      fc.property(name, args, (n, a) => {
        const parsed = parseToolCalls(family.formatCall(n, a));
        expect(parsed.calls).toEqual([{ name: n, arguments: a }]);
      }),
      { numRuns: 200, seed: 20261201 },
    );
  });

  it.each(families.map((f) => [f.id, f] as const))('%s: the call opener and the forced opener both start the written call', (_id, family) => {
    const call = family.formatCall('get_weather', { city: 'Paris' });
    expect(call.startsWith(family.callOpener)).toBe(true);
    expect(call.startsWith(family.forcedCallOpener('get_weather'))).toBe(true);
    for (const closer of family.callClosers) expect(call.endsWith(closer)).toBe(true);
  });

  it('writes a forced name JSON-escaped where the syntax is JSON', () => {
    for (const id of ['qwen3', 'llama3.2', 'granite4', 'phi4-mini', 'hermes'] as const) {
      const opener = MODEL_FAMILIES[id].forcedCallOpener('say "hi"');
      expect(opener).toContain('"say \\"hi\\""');
    }
  });

  it.each(families.filter((f) => f.argumentSlot).map((f) => [f.id, f] as const))(
    '%s: asks a stepwise value inside its own call, after the arguments already chosen',
    (_id, family) => {
      // (Gemma 4 writes keys sorted: the chosen one sorts first.)
      const slot = family.argumentSlot!('get_weather', { area: 'EU' }, 'city', true);
      expect(slot.opener.startsWith(family.forcedCallOpener('get_weather'))).toBe(true);
      // The call as the model would finish it from the slot reads back with both arguments.
      const written = family.formatCall('get_weather', { area: 'EU', city: 'Paris' });
      const at = written.indexOf('Paris');
      expect(written.slice(0, at)).toBe(slot.opener);
      expect(slot.stop.some((stop) => written.slice(at + 'Paris'.length).startsWith(stop))).toBe(true);
    },
  );

  it('gives an unknown id the generic profile', () => {
    expect(familyById('mamba-9').id).toBe('generic');
    expect(familyById(undefined).id).toBe('generic');
    expect(familyById('lfm2').id).toBe('lfm2');
  });

  it('removes the {% generation %} tags that transformers.js cannot parse, and nothing else', () => {
    const template = '{%- for m in messages -%}{%- generation -%}{{ m.content }}{%- endgeneration -%}{% generation %}x{% endgeneration %}{%- endfor -%}';
    expect(fixChatTemplate(template)).toBe('{%- for m in messages -%}{{ m.content }}x{%- endfor -%}');
  });
});

describe('the family registry', () => {
  // Written out so the compiler names a FamilyId without a module, or a module the union lacks.
  const EVERY_ID: Record<FamilyId, true> = {
    'qwen3.5': true,
    qwen3: true,
    gemma4: true,
    mistral3: true,
    hermes: true,
    'deepseek-r1': true,
    'qwen2.5': true,
    'llama3.2': true,
    granite4: true,
    granite3: true,
    lfm2: true,
    functiongemma: true,
    smollm3: true,
    'phi4-mini': true,
    generic: true,
  };

  it('has one module per family id, generic last with no detection rule', () => {
    const ids = FAMILY_MODULES.map((m) => m.profile.id);
    expect([...ids].sort()).toEqual(Object.keys(EVERY_ID).sort());
    expect(FAMILY_MODULES.at(-1)?.profile.id).toBe('generic');
    expect(FAMILY_MODULES.at(-1)).toMatchObject({ templateRules: [], modelTypes: [] });
    for (const id of ids) expect(MODEL_FAMILIES[id].id).toBe(id);
  });

  it('claims each config model_type once', () => {
    const types = FAMILY_MODULES.flatMap((m) => m.modelTypes);
    expect(new Set(types).size).toBe(types.length);
  });

  it("keeps each family's own call markers among what its profile writes", () => {
    for (const { profile } of FAMILY_MODULES) {
      const written = profile.formatCall('get_weather', { city: 'Paris' });
      const own = profile.keepTokens.filter((t) => written.includes(t));
      // Phi-4-mini's kept tokens are the llama.cpp template's, which its vLLM-style call does not use.
      if (profile.id !== 'phi4-mini' && profile.id !== 'llama3.2') expect(own.length, profile.id).toBeGreaterThan(0);
    }
  });
});

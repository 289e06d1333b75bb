import { describe, expect, it } from 'vitest';
import { MODEL_FAMILIES } from '../engine/families.ts';
import { withoutMarkers } from './strip-markers.ts';

describe('withoutMarkers', () => {
  it('cuts every string value at the first turn or call marker, nested values too', () => {
    const markers = MODEL_FAMILIES.qwen3.valueMarkers;
    const call = {
      name: 'get_weather',
      arguments: { city: 'LP-8991-ME.<|im_end|>', list: ['a</tool_call>', 'b'], deep: { note: 'ok <|im_start|>user' }, n: 3 },
    };
    expect(withoutMarkers(call, markers)).toEqual({ name: 'get_weather', arguments: { city: 'LP-8991-ME.', list: ['a', 'b'], deep: { note: 'ok' }, n: 3 } });
  });

  it("knows each family's own markers, and the common end tokens of the others", () => {
    expect(MODEL_FAMILIES.gemma4.valueMarkers).toEqual(expect.arrayContaining(['<turn|>', '<tool_call|>', '<|"|>', '<|im_end|>']));
    expect(MODEL_FAMILIES.mistral3.valueMarkers).toEqual(expect.arrayContaining(['</s>', '[TOOL_CALLS]', '[ARGS]']));
    expect(withoutMarkers({ name: 'f', arguments: { a: 'Paris[TOOL_CALLS]g' } }, MODEL_FAMILIES.mistral3.valueMarkers).arguments).toEqual({ a: 'Paris' });
  });

  it('leaves values without markers as they are', () => {
    const call = { name: 'f', arguments: { a: 'x < y | z', b: true } };
    expect(withoutMarkers(call, MODEL_FAMILIES.generic.valueMarkers)).toEqual(call);
  });
});

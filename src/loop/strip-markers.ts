import type { ModelFamily } from '../engine/model-family.ts';
import type { ToolCall } from '../toolcalls/types.ts';

/**
 * Turn and call markers of the families people run, besides the model's own: a model may end a value
 * with another family's marker it saw in training, and none of them is ever part of an argument.
 */
const COMMON_MARKERS = ['<|im_end|>', '<|im_start|>', '<|eot_id|>', '<|end|>', '<|endoftext|>', '<end_of_turn>', '<turn|>', '</s>', '<｜end▁of▁sentence｜>'];

/** Every marker the engine may keep in generated text for this family: end tokens, call markers, thinking tags. */
export function markersOf(family: ModelFamily): string[] {
  const thinking = family.thinking ? [family.thinking.open, family.thinking.close] : [];
  return [...new Set([...COMMON_MARKERS, ...family.endTokens, ...family.keepTokens, ...family.callClosers, ...thinking])].filter(Boolean);
}

/** A string cut at the first marker it holds, trailing space removed with it; unchanged without one. */
function cut(text: string, markers: readonly string[]): string {
  let end = text.length;
  for (const marker of markers) {
    const at = text.indexOf(marker);
    if (at >= 0 && at < end) end = at;
  }
  return end === text.length ? text : text.slice(0, end).trimEnd();
}

function clean(value: unknown, markers: readonly string[]): unknown {
  if (typeof value === 'string') return cut(value, markers);
  if (Array.isArray(value)) return value.map((v) => clean(v, markers));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v, markers)]));
  return value;
}

/**
 * A call whose string values stop before any turn or call marker: the engine keeps end-of-turn and
 * call tokens in generated text (the parser needs them), and a value the model ended with
 * `<|im_end|>` must reach the tool as `LP-8991-ME.`, not `LP-8991-ME.<|im_end|>`.
 */
export function withoutMarkers(call: ToolCall, markers: readonly string[]): ToolCall {
  return { ...call, arguments: clean(call.arguments, markers) as ToolCall['arguments'] };
}

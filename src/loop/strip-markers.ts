import type { ToolCall } from '../toolcalls/types.ts';

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
 * A call whose string values stop before any of `markers` (the family profile's `valueMarkers`): the
 * engine keeps end-of-turn and call tokens in generated text (the parser needs them), and a value the
 * model ended with its end-of-turn token must reach the tool without it.
 */
export function withoutMarkers(call: ToolCall, markers: readonly string[]): ToolCall {
  return { ...call, arguments: clean(call.arguments, markers) as ToolCall['arguments'] };
}

import { parseLenientJson } from './lenient-json.ts';
import { setOwn } from './own-property.ts';

/**
 * A call written as code: `brave_search.call(query="rust jobs")` (Llama's built-in tools after
 * `<|python_tag|>`), `get_weather(city="Paris")`, or Gemma's
 * `print(default_api.get_weather(city='Paris'))` in a ```` ```tool_code ```` fence.
 *
 * Only keyword arguments are accepted: a positional value has no name to put it under, and
 * guessing which parameter it meant is how the wrong argument gets sent. Values are Python or
 * JSON literals (`'x'`, `"x"`, `3`, `True`, `None`, lists, dicts).
 *
 * @returns `undefined` when `text` is not one such call.
 */
export function parseCallExpression(text: string): { name: string; arguments: Record<string, unknown> } | undefined {
  let t = text.trim();
  const printed = /^print\s*\(([\s\S]*)\)$/.exec(t);
  if (printed?.[1] !== undefined) t = printed[1].trim();
  const call = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\(([\s\S]*)\)$/.exec(t);
  const path = call?.[1];
  const inner = call?.[2];
  if (path === undefined || inner === undefined) return undefined;
  const parts = path.split('.');
  // `tool.call(…)` is Llama's spelling for calling `tool`; `default_api.tool(…)` is Gemma's.
  const name = parts.length > 1 && parts[parts.length - 1] === 'call' ? parts[parts.length - 2] : parts[parts.length - 1];
  if (name === undefined) return undefined;
  const args: Record<string, unknown> = {};
  for (const piece of splitTopLevel(inner)) {
    const part = piece.trim();
    if (part === '') continue;
    const kw = /^([A-Za-z_]\w*)\s*=\s*([\s\S]+)$/.exec(part);
    const key = kw?.[1];
    const raw = kw?.[2];
    if (key === undefined || raw === undefined) return undefined;
    const value = parseLenientJson(raw);
    if (value === undefined) return undefined;
    setOwn(args, key, value);
  }
  return { name, arguments: args };
}

/** Split on commas that are outside strings and brackets. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let escaped = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (quote !== '') {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

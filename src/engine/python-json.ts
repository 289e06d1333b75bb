/**
 * Python's `json.dumps` layout (`", "` and `": "` separators, non-ASCII kept), which is what
 * Jinja's `tojson` produces inside the chat templates (Qwen, Llama, Granite …).
 */
export function pythonJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
}

/**
 * A value as a Python literal (`True`, `None`, `'…'`-free double-quoted strings, `[…]`, `{…}`),
 * the way pythonic call syntax (LFM2's `[f(a=1)]`) writes arguments.
 */
export function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value !== 'object') return JSON.stringify(value) ?? 'None';
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonLiteral(v)}`).join(', ')}}`;
}

/** Python's `repr()` of a string: single quotes unless it holds one and no double quote; escapes as Python writes them. */
function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = [...text]
    .map((c) => {
      if (c === '\\') return '\\\\';
      if (c === quote) return `\\${c}`;
      if (c === '\n') return '\\n';
      if (c === '\r') return '\\r';
      if (c === '\t') return '\\t';
      const code = c.codePointAt(0) ?? 0;
      if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
      return c;
    })
    .join('');
  return `${quote}${escaped}${quote}`;
}

/**
 * A value as Python's `str()` writes a dict or a list of it (`{'a': 1, 'b': [True, None]}`): what Jinja2's
 * `string` filter, or a template's `~`, puts in a prompt for a mapping.
 */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return pythonStringRepr(value);
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`)
    .join(', ')}}`;
}

/** Default cap on what one tool result may put into a small model's context. */
export const DEFAULT_MAX_RESULT_CHARS = 4000;

/**
 * Turns a handler's return value into the text the model reads, capped at `maxChars` with a note
 * saying how much was cut — a tool must never pour megabytes into a 0.6B model's context.
 */
export function formatToolResult(value: unknown, maxChars = DEFAULT_MAX_RESULT_CHARS): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === undefined) text = 'Done (the tool returned nothing).';
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  if (text.length <= maxChars) return text;
  const note = `\n[Result cut: showing ${maxChars.toLocaleString('en')} of ${text.length.toLocaleString('en')} characters.]`;
  return text.slice(0, maxChars) + note;
}

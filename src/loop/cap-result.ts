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
  return closeCutFences(text.slice(0, maxChars)) + note;
}

/**
 * Closes again every fenced page a cut left open: the companion proxy quotes page text between
 * `<<<PAGE-tag` and `PAGE-tag>>>` (a fresh random tag per page, see `src/proxy/fence.ts`), and a
 * result cut inside a page would otherwise leave its quote open, so what follows the cut — the
 * note, the next turn — would read as the page's text.
 */
function closeCutFences(kept: string): string {
  const open = [...kept.matchAll(/<<<PAGE-([0-9a-f]+)\n/g)].map((m) => m[1] as string).filter((tag) => !kept.includes(`PAGE-${tag}>>>`));
  return open.reduceRight((text, tag) => `${text}\nPAGE-${tag}>>>`, kept);
}

import type { ModelFamily } from '../engine/model-family.ts';
import { type ParseResult, parseToolCalls } from '../toolcalls/index.ts';

/**
 * The calls in a generation: first in the call syntax learned from the model's own template (where the
 * profile has one), then, in the rest of the text, every format the lenient parser knows.
 */
export function parseInFamily(family: ModelFamily, raw: string): ParseResult {
  const read = family.readCalls?.(raw);
  if (!read) return parseToolCalls(raw);
  const rest = parseToolCalls(raw.slice(0, read.start) + raw.slice(read.end));
  return { ...rest, calls: [...read.calls.map((c) => ({ name: c.name, arguments: c.arguments })), ...rest.calls] };
}

/**
 * Holds streamed text back from where a learned call syntax's opener begins: markers no built-in format
 * knows (`<TOOLCALL>`, `<|tools_prefix|>`) would otherwise reach the reader. Text that may be the start
 * of the opener is held until it is known not to be.
 */
export class LearnedCallHider {
  private held = '';
  private hiding = false;
  private readonly lead: string;

  constructor(family: ModelFamily) {
    // The opener up to its first slot (an id, a position: U+E010–U+E012 in the syntax' pieces), which the model writes as it likes.
    const syntax = family.callSyntax;
    this.lead = syntax ? ((syntax.sectionOpen + syntax.callOpen).split(/[\uE010-\uE012]/)[0] ?? '').trim() : '';
  }

  /** What of `text` may be shown now. */
  push(text: string): string {
    if (!this.lead || this.hiding) return this.lead ? '' : text;
    const all = this.held + text;
    const at = all.indexOf(this.lead);
    if (at >= 0) {
      this.hiding = true;
      this.held = '';
      return all.slice(0, at);
    }
    // Keep the longest tail that could still grow into the opener.
    let keep = Math.min(all.length, this.lead.length - 1);
    while (keep > 0 && !this.lead.startsWith(all.slice(all.length - keep))) keep--;
    this.held = all.slice(all.length - keep);
    return all.slice(0, all.length - keep);
  }

  /** The generation ended: what is still held and was no opener. */
  end(): string {
    const rest = this.hiding ? '' : this.held;
    this.held = '';
    return rest;
  }
}

/**
 * Collects the reader's text and trims it as it goes: leading whitespace is dropped, and a run at
 * the end that may be trailing — whitespace, and closing quotes, braces and brackets — is held until
 * something visible follows it, so one that turns out to be trailing (before a call block, or at the
 * end) is decided only then. At the end ({@link VisibleText.finish}) the closers that close something
 * the text opened are released, and a run of two or more that close nothing is dropped: `It is 4 °C."}}`
 * — a small model closing JSON it never opened — reads `It is 4 °C.`, while `He said "hi"` keeps its
 * quote and `{left}}` its one stray brace. Concatenating everything
 * `take()` returns (after `finish()`) is the same for any split of the text written, however it
 * was split — which is what makes the stream's text equal the parser's exactly.
 */
export class VisibleText {
  private started = false;
  private pendingTail = '';
  private out = '';
  /** Over the released text: braces and brackets still open, and straight double quotes seen. */
  private braces = 0;
  private brackets = 0;
  private quotes = 0;

  /** Characters held because they may be trailing. */
  get heldBack(): number {
    return this.pendingTail.length;
  }

  /** Add text the reader may see. */
  write(piece: string): void {
    let text = piece;
    if (!this.started) {
      let first = 0;
      while (first < text.length && isTrimmable(text.charCodeAt(first))) first++;
      if (first === text.length) return;
      text = text.slice(first);
      this.started = true;
    }
    let last = text.length - 1;
    while (last >= 0 && isTail(text.charCodeAt(last))) last--;
    if (last < 0) {
      this.pendingTail += text;
      return;
    }
    // String concatenation builds a rope; it is flattened once, when taken.
    this.release(this.pendingTail + text.slice(0, last + 1));
    this.pendingTail = text.slice(last + 1);
  }

  /** The text is complete: of the held run, the closers that close something are released; the rest goes. */
  finish(): void {
    let keep = 0;
    let braces = this.braces;
    let brackets = this.brackets;
    let quotes = this.quotes;
    for (let i = 0; i < this.pendingTail.length; i++) {
      const c = this.pendingTail[i];
      if (c === '}' && braces > 0) braces--;
      else if (c === ']' && brackets > 0) brackets--;
      else if (c === '"' && quotes % 2 === 1) quotes++;
      else if (c !== undefined && isTrimmable(c.charCodeAt(0))) continue;
      else break;
      keep = i + 1;
    }
    // One stray closer may be the writer's own ("{left}}"); a run of them closing nothing is JSON debris.
    const rest = this.pendingTail.slice(keep).trimEnd();
    this.release(rest.length === 1 ? this.pendingTail.slice(0, keep) + rest : this.pendingTail.slice(0, keep));
    this.pendingTail = '';
  }

  /** What became visible since the last call. */
  take(): string {
    const text = this.out;
    this.out = '';
    return text;
  }

  private release(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 123) this.braces++;
      else if (c === 125) this.braces = Math.max(0, this.braces - 1);
      else if (c === 91) this.brackets++;
      else if (c === 93) this.brackets = Math.max(0, this.brackets - 1);
      else if (c === 34) this.quotes++;
    }
    this.out += text;
  }
}

/** A character that may end an answer without being part of it: whitespace, or a closing `"`, `}` or `]`. */
function isTail(c: number): boolean {
  return c === 34 || c === 125 || c === 93 || isTrimmable(c);
}

/** Exactly the characters `String.prototype.trim` removes (WhiteSpace and LineTerminator). */
export function isTrimmable(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return (
    c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

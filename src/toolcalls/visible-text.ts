/**
 * Collects the reader's text and trims it as it goes: leading whitespace is dropped, and a
 * whitespace run is held until something visible follows it, so one that turns out to be
 * trailing (before a call block, or at the end) is never released. Concatenating everything
 * `take()` returns equals `String.prototype.trim` of all the text written, however it was split —
 * which is what makes the stream's text equal the parser's exactly, not just up to whitespace.
 */
export class VisibleText {
  private started = false;
  private pendingSpace = '';
  private out = '';

  /** Whitespace held because it may be trailing. */
  get heldBack(): number {
    return this.pendingSpace.length;
  }

  /** Add text the reader may see. */
  write(piece: string): void {
    let last = piece.length - 1;
    while (last >= 0 && isTrimmable(piece.charCodeAt(last))) last--;
    if (last < 0) {
      if (this.started) this.pendingSpace += piece;
      return;
    }
    let first = 0;
    if (!this.started) {
      while (isTrimmable(piece.charCodeAt(first))) first++;
      this.started = true;
    }
    // String concatenation builds a rope; it is flattened once, when taken.
    this.out += this.pendingSpace + piece.slice(first, last + 1);
    this.pendingSpace = piece.slice(last + 1);
  }

  /** What became visible since the last call. */
  take(): string {
    const text = this.out;
    this.out = '';
    return text;
  }
}

/** Exactly the characters `String.prototype.trim` removes (WhiteSpace and LineTerminator). */
export function isTrimmable(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return (
    c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

import { matchLiteral, type BlockReading, type CallSite, type HoldPhase, type SiteContext, type SiteScan, type VerbatimRegion } from './site.ts';
import type { ToolNames } from './tool-names.ts';
import type { RejectedCall, ToolCall } from './types.ts';

/** Where a {@link Segmenter} delivers what it decided. */
export interface SegmentSink {
  /** Text for the reader, in order. */
  text(piece: string): void;
  /** Calls (and dropped attempts) of one block, in order. */
  found(calls: readonly ToolCall[], rejected: readonly RejectedCall[]): void;
}

const BACKTICK = 96;

/** Held blocks longer than this are re-examined in batches (see `write`). */
const LONG_BLOCK = 2048;

type Decision = SiteScan | { readonly kind: 'claim'; readonly end: number; readonly reading: BlockReading };

/**
 * The single walk over the output that both the parser and the streaming filter run: text
 * goes out as text, call blocks come out as calls, and each character is looked at a bounded
 * number of times however the output is chunked.
 *
 * It jumps from one possible opener character to the next (a regular expression built from the
 * sites' openers), hands each position to the sites in priority order (see `TOOL_CALL_FORMATS`),
 * and acts on the first decision. Fed the whole output with `final` true it is the parser;
 * fed chunk by chunk it is the stream filter, stopping at the first position that cannot be
 * decided yet and resuming there — the sites' memo keeps their scanners, so resuming costs only
 * the new characters.
 *
 * The buffer holds only what is undecided: decided text is dropped after each write, so a long
 * answer streams in memory bounded by the largest held block, not by the answer.
 */
export class Segmenter {
  private buffer = '';
  /** Text received while a long block is held, not yet appended to `buffer`. */
  private deferred = '';
  private pos = 0;
  private lineStart = true;
  private prevChar = -1;
  private phase: HoldPhase | null = null;
  private region: VerbatimRegion | null = null;
  private readonly memo = new Map<string, unknown>();
  private readonly trigger: RegExp;

  constructor(
    private readonly sites: readonly CallSite[],
    private readonly names: ToolNames | undefined,
    private readonly sink: SegmentSink,
  ) {
    const firsts = [...new Set(sites.map((site) => site.opener.charAt(0)))];
    this.trigger = new RegExp(`[${firsts.map((c) => `\\${c}`).join('')}]`, 'g');
  }

  /** Why text is being held right now, or `null` when nothing is. */
  get holdPhase(): HoldPhase | null {
    return this.phase;
  }

  /** Characters held undecided right now (a possible marker or a bare JSON candidate); text inside a known block does not count. */
  get heldBack(): number {
    return this.phase === 'marker' || this.phase === 'candidate' ? this.buffer.length - this.pos + this.deferred.length : 0;
  }

  /** Add text; with `final`, it is the last, and everything still held is decided. */
  write(chunk: string, final: boolean): void {
    this.deferred += chunk;
    // A long held block is re-examined only once the text waiting has grown by an eighth of it:
    // joining the held text is a copy, and copying a growing block on every token would be
    // quadratic. Decisions are the same, only noticed a little later, and blocks of ordinary
    // size (under LONG_BLOCK) are still examined on every chunk.
    if (!final && this.phase !== null && this.buffer.length > LONG_BLOCK && this.deferred.length * 8 < this.buffer.length) return;
    this.buffer += this.deferred;
    this.deferred = '';
    this.run(final);
    if (this.phase === null && this.pos > 0) {
      const delta = this.pos;
      this.buffer = this.buffer.slice(delta);
      this.pos = 0;
      this.region?.rebase(delta);
    }
  }

  private run(final: boolean): void {
    let text = this.buffer;
    let pos = this.pos;
    this.phase = null;
    for (;;) {
      if (this.region !== null) {
        const step = this.region.advance(text, pos, final);
        this.emit(text, pos, step.at);
        pos = step.at;
        if (!step.done) break;
        this.region = null;
        continue;
      }
      this.trigger.lastIndex = pos;
      const hit = this.trigger.exec(text);
      if (hit === null) {
        this.emit(text, pos, text.length);
        pos = text.length;
        break;
      }
      this.emit(text, pos, hit.index);
      pos = hit.index;

      const decision = this.decide(text, pos, final);
      if (decision.kind === 'more' && !final) {
        if (pos > 0) {
          // Keep only the undecided tail, and scan it afresh so the sites' stored positions
          // refer to the trimmed buffer. This happens once per held position, not per chunk.
          this.buffer = text = text.slice(pos);
          pos = 0;
          this.memo.clear();
          continue;
        }
        this.phase = decision.phase;
        break;
      }
      this.memo.clear();
      switch (decision.kind) {
        case 'claim':
          this.sink.found(decision.reading.calls, decision.reading.rejected);
          this.track(text, pos, decision.end);
          pos = decision.end;
          break;
        case 'verbatim': {
          // Without a region to continue it, a verbatim answer must move past the opener.
          const from = Math.max(decision.from, decision.region === undefined ? pos + 1 : pos);
          this.emit(text, pos, from);
          pos = from;
          this.region = decision.region ?? null;
          break;
        }
        default:
          // 'none', or a site that wanted more although the text is final: the opener is text.
          this.emit(text, pos, pos + 1);
          pos += 1;
          break;
      }
    }
    this.pos = pos;
  }

  private decide(text: string, at: number, final: boolean): Decision {
    // Right after a backtick is inline code: `<tool_call>` or `{"name": …}` written there is
    // the model showing the syntax, not using it.
    if (this.prevChar === BACKTICK) return { kind: 'none' };
    const context: SiteContext = { final, names: this.names, lineStart: this.lineStart, prevChar: this.prevChar, memo: this.memo };
    let fallback: SiteScan | null = null;
    for (const site of this.sites) {
      if (site.lineStartOnly === true && !this.lineStart) continue;
      const opener = matchLiteral(text, at, site.opener, final);
      if (opener === 'maybe') return { kind: 'more', phase: 'marker' };
      if (opener === 'no') continue;
      const scan = site.scan(text, at, context);
      if (scan.kind === 'more') return scan;
      if (scan.kind === 'none') continue;
      if (scan.kind === 'verbatim') {
        fallback ??= scan;
        continue;
      }
      const reading = site.read(text, at, scan.end, context);
      if (reading.claimed) return { kind: 'claim', end: reading.end ?? scan.end, reading };
      fallback ??= { kind: 'verbatim', from: scan.end };
    }
    return fallback ?? { kind: 'none' };
  }

  private emit(text: string, from: number, to: number): void {
    if (to <= from) return;
    this.track(text, from, to);
    this.sink.text(text.slice(from, to));
  }

  /** Follow line starts and the previous character over `text[from, to)`, looking at each character at most once. */
  private track(text: string, from: number, to: number): void {
    if (to <= from) return;
    let i = to - 1;
    while (i >= from && text.charCodeAt(i) !== 10) i--;
    let start = from;
    if (i >= from) {
      this.lineStart = true;
      start = i + 1;
    }
    if (this.lineStart) {
      for (let j = start; j < to; j++) {
        const c = text.charCodeAt(j);
        if (c !== 32 && c !== 9) {
          this.lineStart = false;
          break;
        }
      }
    }
    this.prevChar = text.charCodeAt(to - 1);
  }
}

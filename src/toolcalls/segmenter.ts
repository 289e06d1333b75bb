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
const GT = 62;

/** Whether a `>` at `at` opens a Functionary recipient (`>>>name`): yes, no, or maybe when the text ends first. */
function recipientAt(text: string, at: number, final: boolean): 'yes' | 'no' | 'maybe' {
  for (let k = 0; k < 4; k++) {
    if (at + k >= text.length) return final ? 'no' : 'maybe';
    const c = text.charCodeAt(at + k);
    if (k < 3 ? c !== GT : !((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return 'no';
  }
  return 'yes';
}

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
  /** See `SiteContext.shared`: reset whenever the buffer changes. */
  private readonly shared = new Map<string, unknown>();
  private readonly trigger: RegExp;
  /** The sites by the first character of their opener, each list in priority order. */
  private readonly byFirst = new Map<number, CallSite[]>();
  /**
   * The sites that can start at a position, by its first two characters: those whose opener
   * begins with them and those whose opener is that one character, in priority order. Most
   * `<` in a text open none of the many `<…>` markers, and this says so in one lookup.
   */
  private readonly byTwo = new Map<string, CallSite[]>();
  /** Per first character, the sites whose opener is that single character. */
  private readonly single = new Map<number, CallSite[]>();
  /** Sites that exist only at the start of the output. */
  private readonly startSites: readonly CallSite[];
  /** Nothing has been read yet: the start sites still get their turn. */
  private atOutputStart = true;
  /** Backticks seen on the current line outside call blocks: odd means inside an inline code span. */
  private ticks = 0;
  /** The current line is a Markdown blockquote: what it shows is quoted, not emitted. */
  private quoteLine = false;
  /** The last thing decided was call markup, with no text after it yet. */
  private afterCall = false;

  constructor(
    readonly sites: readonly CallSite[],
    private readonly names: ToolNames | undefined,
    private readonly sink: SegmentSink,
  ) {
    this.startSites = sites.filter((site) => site.outputStartOnly === true);
    for (const site of sites) {
      if (site.outputStartOnly === true) continue;
      const c = site.opener.charCodeAt(0);
      const list = this.byFirst.get(c) ?? [];
      list.push(site);
      this.byFirst.set(c, list);
    }
    for (const [c, list] of this.byFirst) {
      this.single.set(
        c,
        list.filter((site) => site.opener.length === 1),
      );
      for (const site of list) {
        if (site.opener.length < 2) continue;
        const key = site.opener.slice(0, 2);
        if (!this.byTwo.has(key))
          this.byTwo.set(
            key,
            list.filter((other) => other.opener.length === 1 || other.opener.startsWith(key)),
          );
      }
    }
    // A letter can only open a line-start site: it triggers only there, or every word would stop the walk.
    const symbols: string[] = [];
    const letters: string[] = [];
    for (const [c, list] of this.byFirst) {
      const ch = String.fromCharCode(c);
      if (/[A-Za-z0-9]/.test(ch)) {
        if (list.every((site) => site.lineStartOnly === true)) letters.push(ch);
        else symbols.push(ch);
      } else {
        symbols.push(ch);
      }
    }
    // `>` matters only as `>>>` (a Functionary recipient) or at a line start (a blockquote); near the
    // end of the buffer it may still become `>>>`.
    const gt = symbols.indexOf('>');
    if (gt >= 0) symbols.splice(gt, 1);
    const alternatives = [`[${symbols.map((c) => `\\${c}`).join('')}]`];
    if (gt >= 0) alternatives.push('>(?=>>|>?$)', '>(?<=(?:^|\\n)[ \\t]*>)');
    if (letters.length > 0) alternatives.push(`[${letters.join('')}](?<=(?:^|\\n)[ \\t]*.)`);
    this.trigger = new RegExp(alternatives.join('|'), 'g');
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
    this.shared.clear();
    for (;;) {
      if (this.atOutputStart) {
        const decision = this.decideStart(text, pos, final);
        if (decision.kind === 'more' && !final) {
          this.phase = decision.phase;
          break;
        }
        this.atOutputStart = false;
        this.memo.clear();
        if (decision.kind === 'claim') {
          this.sink.found(decision.reading.calls, decision.reading.rejected);
          this.track(text, pos, decision.end, false);
          pos = decision.end;
        }
        continue;
      }
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
          this.shared.clear();
          continue;
        }
        this.phase = decision.phase;
        break;
      }
      this.memo.clear();
      switch (decision.kind) {
        case 'claim':
          this.sink.found(decision.reading.calls, decision.reading.rejected);
          this.track(text, pos, decision.end, false);
          pos = decision.end;
          this.afterCall = decision.reading.calls.length + decision.reading.rejected.length > 0;
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

  /** The start sites' turn, before anything else of the output is read. */
  private decideStart(text: string, at: number, final: boolean): Decision {
    if (this.startSites.length === 0) return { kind: 'none' };
    return this.decideAmong(this.startSites, text, at, final);
  }

  private decide(text: string, at: number, final: boolean): Decision {
    // Inside an inline code span, or right after a backtick, `<tool_call>` or `{"name": …}` is
    // the model showing the syntax, not using it; so is anything on a blockquote line.
    if (this.prevChar === BACKTICK || this.ticks % 2 === 1 || this.quoteLine) return { kind: 'none' };
    const c = text.charCodeAt(at);
    if (c === GT && this.lineStart) {
      const recipient = recipientAt(text, at, final);
      if (recipient === 'maybe') return { kind: 'more', phase: 'marker' };
      if (recipient === 'no') {
        // A line opening with `>` is a Markdown blockquote (but `>>>name` is a Functionary recipient).
        this.quoteLine = true;
        return { kind: 'none' };
      }
    }
    const sites = at + 1 < text.length ? (this.byTwo.get(text.slice(at, at + 2)) ?? this.single.get(c)) : this.byFirst.get(c);
    if (sites === undefined || sites.length === 0) return { kind: 'none' };
    return this.decideAmong(sites, text, at, final);
  }

  private decideAmong(sites: readonly CallSite[], text: string, at: number, final: boolean): Decision {
    const context: SiteContext = {
      final,
      names: this.names,
      lineStart: this.lineStart,
      prevChar: this.prevChar,
      afterCall: this.afterCall,
      memo: this.memo,
      shared: this.shared,
    };
    let fallback: SiteScan | null = null;
    for (const site of sites) {
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
    this.afterCall = false;
    this.track(text, from, to, true);
    this.sink.text(text.slice(from, to));
  }

  /**
   * Follow line starts, the previous character and (in text, not in call blocks, whose strings
   * may hold anything) the backticks and blockquote state of the line over `text[from, to)`,
   * looking at each character at most once.
   */
  private track(text: string, from: number, to: number, countTicks: boolean): void {
    if (to <= from) return;
    let i = to - 1;
    while (i >= from && text.charCodeAt(i) !== 10) i--;
    let start = from;
    if (i >= from) {
      this.lineStart = true;
      this.ticks = 0;
      this.quoteLine = false;
      start = i + 1;
    }
    if (countTicks) for (let j = start; j < to; j++) if (text.charCodeAt(j) === BACKTICK) this.ticks++;
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

import { TOOL_CALL_SITES } from './formats.ts';
import { Segmenter } from './segmenter.ts';
import { ThinkingStripper } from './strip-thinking.ts';
import { ToolNames } from './tool-names.ts';
import type { RejectedCall, StreamFilterOptions, StreamStats, StreamUpdate, ToolCall } from './types.ts';
import { VisibleText } from './visible-text.ts';

/**
 * Takes generated text chunk by chunk and releases only what the user may see.
 *
 * Whatever could be the start of call markup — `<tool_call>`, `<function=`, `[TOOL_CALLS]`,
 * `<|python_tag|>`, a code fence opening a line, a `{` or `[` that may begin a bare JSON call —
 * and any `<think>` block is held until it is known to be one or not, however the chunks split
 * it. Complete calls come out in `calls` and their markup never reaches `text`; what turns out
 * not to be a call (a ```` ```python ```` sample, a JSON object of data) is released as written
 * as soon as that is known.
 *
 * It runs the parser's own walk incrementally (see `Segmenter`), so for any output and any
 * chunking, the concatenated `text` equals `parseToolCalls(output).text` exactly and the calls
 * are the same, in the same order — given `startsInThinking` when the prompt opened a thinking
 * block (see {@link StreamFilterOptions}).
 *
 * Cost: each character is examined a bounded number of times, so a long answer streams in
 * linear time, and only undecided text is kept in memory.
 */
export class ToolCallStreamFilter {
  private readonly thinking: ThinkingStripper;
  private readonly visible = new VisibleText();
  private readonly segmenter: Segmenter;
  private calls: ToolCall[] = [];
  private rejected: RejectedCall[] = [];
  private ended = false;
  private maxHeld = 0;
  private maxMarker = 0;

  constructor(options: StreamFilterOptions = {}) {
    this.thinking = new ThinkingStripper({ startsInThinking: options.startsInThinking ?? false });
    this.segmenter = new Segmenter(TOOL_CALL_SITES, ToolNames.from(options.tools), {
      text: (piece) => this.visible.write(piece),
      found: (calls, rejected) => {
        this.calls.push(...calls);
        this.rejected.push(...rejected);
      },
    });
  }

  /** Feed the next chunk of generated text. */
  push(chunk: string): StreamUpdate {
    if (this.ended) throw new Error('ToolCallStreamFilter.push() after end(): create a new filter for the next generation.');
    this.segmenter.write(this.thinking.push(chunk), false);
    this.measure();
    return this.take();
  }

  /** The generation finished: decide everything still held. */
  end(): StreamUpdate {
    if (this.ended) return { text: '', calls: [], rejected: [], reasoning: '' };
    this.ended = true;
    this.segmenter.write(this.thinking.end(), true);
    this.visible.finish();
    return this.take();
  }

  /** Hold-back measurements so far (see {@link StreamStats}). */
  get stats(): StreamStats {
    return { maxHeldBack: this.maxHeld, maxMarkerHeld: this.maxMarker, heldBack: this.currentHeld() };
  }

  /** Most characters ever held back undecided; shorthand for `stats.maxHeldBack`. */
  get maxHeldBack(): number {
    return this.maxHeld;
  }

  private currentHeld(): number {
    if (this.ended) return 0;
    return this.thinking.heldBack + this.segmenter.heldBack + this.visible.heldBack;
  }

  private measure(): void {
    this.maxHeld = Math.max(this.maxHeld, this.currentHeld());
    const marker = this.thinking.heldBack + (this.segmenter.holdPhase === 'marker' ? this.segmenter.heldBack : 0);
    this.maxMarker = Math.max(this.maxMarker, marker);
  }

  private take(): StreamUpdate {
    const update: StreamUpdate = { text: this.visible.take(), calls: this.calls, rejected: this.rejected, reasoning: this.thinking.takeReasoning() };
    this.calls = [];
    this.rejected = [];
    return update;
  }
}

import { TOOL_CALL_SITES } from './formats.ts';
import { Segmenter } from './segmenter.ts';
import { removeThinking } from './strip-thinking.ts';
import { ToolNames } from './tool-names.ts';
import type { ParseOptions, ParseResult, RejectedCall, ToolCall } from './types.ts';
import { VisibleText } from './visible-text.ts';

/**
 * Every tool call in a model's raw output, and the prose around them.
 *
 * Thinking is stripped first (see `stripThinking`), so a call the model only considered is never
 * run. Then the text is read once, front to back: at each place a call may start, the formats of
 * `TOOL_CALL_FORMATS` are tried in priority order — Hermes/Qwen `<tool_call>` JSON, the XML
 * `<function=…>` form, Mistral `[TOOL_CALLS]`, Llama `<|python_tag|>` and bare JSON, Markdown
 * fences, OpenAI-shaped JSON — and the first that yields a call takes that stretch of text.
 *
 * Lenient about how a call is written (unterminated JSON, trailing commas, single quotes, prose
 * after the JSON, a missing `</tool_call>`, double-encoded arguments, a name in the wrong case
 * when `tools` says how it is spelt); strict about whether something is a call at all (see
 * `readCallValue` and `bareJsonSite` for the rules). With `tools` given, a name that is not
 * registered is dropped, never remapped; such attempts are listed in `rejected`.
 *
 * `text` is the output with thinking, call markup and failed-call markup removed, trimmed.
 * Feeding the same output through {@link ToolCallStreamFilter} in any chunks gives the same
 * calls, and visible text equal to `text`.
 */
export function parseToolCalls(raw: string, options: ParseOptions = {}): ParseResult {
  const visible = new VisibleText();
  const calls: ToolCall[] = [];
  const rejected: RejectedCall[] = [];
  const segmenter = new Segmenter(TOOL_CALL_SITES, ToolNames.from(options.tools), {
    text: (piece) => visible.write(piece),
    found: (found, dropped) => {
      calls.push(...found);
      rejected.push(...dropped);
    },
  });
  segmenter.write(removeThinking(raw), true);
  visible.finish();
  return { calls, text: visible.take(), rejected };
}

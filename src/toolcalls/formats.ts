import { markupResidueFormat } from './markup-residue.ts';
import { delimitedFormat } from './parse-delimited.ts';
import { fencedFormat } from './parse-fenced.ts';
import { functionaryFormat } from './parse-functionary.ts';
import { glmFormat } from './parse-glm.ts';
import { harmonyFormat } from './parse-harmony.ts';
import { taggedJsonFormat } from './parse-tagged-json.ts';
import { hermesFormat } from './parse-hermes.ts';
import { llamaFormat } from './parse-llama.ts';
import { mistralFormat } from './parse-mistral.ts';
import { openAiFormat } from './parse-openai.ts';
import { xmlFunctionFormat } from './parse-xml-function.ts';
import type { CallSite, ToolCallFormat } from './site.ts';
import { LONGEST_THINKING_TAG, THINKING_TAGS } from './strip-thinking.ts';

/**
 * Every format the parser reads, in priority order.
 *
 * The order decides who reads a stretch of text that several formats could: at each place a
 * call may start, the formats are asked in this order and the first that yields a call (or
 * recognises its own markup) takes the stretch; the others never see it. So the JSON inside
 * `<tool_call>` is Hermes, not bare Llama JSON; the array after `[TOOL_CALLS]` is Mistral; a
 * `{` is read as a Llama object before an OpenAI envelope. Different places in one output are
 * read independently, each by its own format, in text order — which is what lets a stream
 * decide each place as soon as it is complete.
 */
export const TOOL_CALL_FORMATS: readonly ToolCallFormat[] = [
  hermesFormat,
  xmlFunctionFormat,
  glmFormat,
  mistralFormat,
  delimitedFormat,
  harmonyFormat,
  taggedJsonFormat,
  functionaryFormat,
  llamaFormat,
  fencedFormat,
  openAiFormat,
  markupResidueFormat,
];

/** The sites of {@link TOOL_CALL_FORMATS}, flattened in the same order. */
export const TOOL_CALL_SITES: readonly CallSite[] = TOOL_CALL_FORMATS.flatMap((format) => format.sites);

/**
 * The longest literal that opens call markup or reasoning. The stream filter holds back at most
 * one character less than this while it cannot yet tell whether a marker starts (or, at the very
 * start of an output, one less than the longest registered tool name, for Functionary's bare
 * recipient line).
 */
export const LONGEST_MARKER: number = Math.max(LONGEST_THINKING_TAG, ...TOOL_CALL_SITES.map((site) => site.opener.length));

/**
 * Every literal the parser reads: the openers of all call sites (closers and residue markers among
 * them), the formats' inner markers and the thinking tags. An engine keeps those that are special
 * tokens of its tokenizer in generated text, so no marker the parser needs is dropped in decoding,
 * whatever the family (a model may answer in a dialect it was not asked for).
 */
export const CALL_MARKERS: readonly string[] = [
  ...new Set([
    ...TOOL_CALL_FORMATS.flatMap((format) => [...format.sites.map((site) => site.opener), ...(format.innerMarkers ?? [])]),
    ...THINKING_TAGS.flatMap((tags) => [tags.open, tags.close]),
  ]),
].filter((marker) => marker.length > 0);

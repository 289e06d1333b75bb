import { bareJsonSite } from './bare-json.ts';
import type { CallSite, ToolCallFormat } from './site.ts';

/**
 * OpenAI's own shapes written out as text: `{"function": {"name", "arguments"}}`,
 * `{"type": "function", "function": {…}}` and the `{"tool_calls": [...]}` wrapper (possibly with
 * `"role"`/`"content"` beside it), or an array of envelopes. Models trained on API transcripts
 * fall into these; `arguments` is then usually a JSON *string*, which is decoded.
 *
 * Read by the same bare-JSON rules as Llama's objects (see `bareJsonSite`); inside explicit
 * markup the other formats accept these shapes too.
 */
const openAiObjectSite: CallSite = bareJsonSite('{', ['openai']);
/** An array of OpenAI envelopes. */
const openAiArraySite: CallSite = bareJsonSite('[', ['openai']);

/** Format 6: OpenAI-shaped JSON. */
export const openAiFormat: ToolCallFormat = {
  id: 'openai',
  description: 'OpenAI-shaped: {"function": {"name", "arguments"}}, {"type": "function", …}, {"tool_calls": [...]}',
  sites: [openAiObjectSite, openAiArraySite],
};

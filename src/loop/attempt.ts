import type { ToolCall } from '../toolcalls/types.ts';
import type { CallSource } from './call-types.ts';

/** What one strategy got out of the model in a round. */
export interface Attempt {
  source: CallSource;
  /** Calls naming registered tools, with the registered spelling. */
  calls: ToolCall[];
  /** Calls naming tools that do not exist (inline and answer rounds only; forcing discards them). */
  unknown: ToolCall[];
  /** Registered and unknown calls together, in the order the model wrote them (results go back in this order). */
  order: ToolCall[];
  /** Visible text (prose around the calls, or the whole answer); empty for forced attempts. */
  text: string;
  raw: string;
}

/** An attempt that produced nothing usable. */
export function emptyAttempt(source: CallSource, raw = '', text = ''): Attempt {
  return { source, calls: [], unknown: [], order: [], text, raw };
}

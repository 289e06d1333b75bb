/**
 * What a tool handler may return besides its result: details for the page (what a web search found, a
 * part of an MCP result meant for the user only), kept with the call in the answer's steps and never
 * shown to the model. Plain data only: they cross the worker and are saved with the conversation.
 */
export class ToolReturn {
  /**
   * @param result - what the model reads (as any handler's return value).
   * @param details - JSON data for whoever shows the call.
   */
  constructor(
    readonly result: unknown,
    readonly details: Readonly<Record<string, unknown>>,
  ) {}
}

/** A handler's return value with details for the page beside it (see {@link ToolReturn}). */
export function withDetails(result: unknown, details: Readonly<Record<string, unknown>>): ToolReturn {
  return new ToolReturn(result, details);
}

/**
 * What a handler receives besides its arguments: `handler(args, context)`.
 *
 * Handlers reach the outside world only through the context, so a test (or a page that needs auth
 * headers, or a proxy) swaps `fetch` without touching the tool's code — `tools.js` is plain script
 * and cannot import a mock.
 */
export interface ToolContext {
  /** The fetch to use for any network access; defaults to the page's `globalThis.fetch`. */
  readonly fetch: typeof globalThis.fetch;
  /** Aborted when the user stops the answer; pass it on to `fetch` and long waits. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Asks the user to approve a call to a tool registered with `confirm: true`, resolving to their
   * decision. Without it, such a tool is refused rather than run unapproved.
   */
  readonly approve?: ((request: ApprovalRequest) => boolean | Promise<boolean>) | undefined;
  /**
   * Characters of this call's result the model will read; a longer result is cut, with a note. A
   * tool that fetches text (a page, a document) may ask for no more, so what it returns fits whole.
   * Absent when the caller sets no limit.
   */
  readonly maxResultChars?: number | undefined;
}

/** What the user is shown when a `confirm` tool asks for approval. */
export interface ApprovalRequest {
  /** The registered tool name. */
  readonly name: string;
  /** The validated, coerced arguments the handler would receive. */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/**
 * Fills in the defaults of a partial context.
 *
 * @param context - what the caller supplies; anything left out takes its default.
 */
export function createToolContext(context: Partial<ToolContext> = {}): ToolContext {
  return {
    ...context,
    // Looked up at call time and bound, because a bare reference to `fetch` throws "Illegal
    // invocation" in browsers once it is called as a method of another object.
    fetch: context.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  };
}

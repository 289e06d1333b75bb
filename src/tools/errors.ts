import { NexusError, registerErrorClass } from '../shared/errors.ts';

/**
 * A `tool()` registration that cannot be accepted: a malformed or duplicate name, a handler that
 * is not a function, an unknown parameter type, a `required` entry that names no parameter.
 *
 * Thrown at registration time, so a mistake surfaces where the tool is written rather than as a
 * confusing model failure several rounds into a chat.
 */
export class ToolDefinitionError extends NexusError {
  override readonly name = 'ToolDefinitionError';
  /** The tool name as given (possibly malformed), or `undefined` when it was not even a string. */
  readonly toolName: string | undefined;

  /**
   * @param message - one sentence naming the problem and what to do about it.
   * @param toolName - the name the registration was attempted under.
   */
  constructor(message: string, toolName?: string) {
    super(message);
    this.toolName = toolName;
  }
}

registerErrorClass(ToolDefinitionError, 'ToolDefinitionError');

/**
 * Arguments that do not satisfy a tool's parameters, even after the lenient coercions
 * (see {@link validateArguments}). The message is one line written for the model to act on.
 */
export class ToolArgumentsError extends NexusError {
  override readonly name = 'ToolArgumentsError';
  /** The tool whose arguments were rejected. */
  readonly toolName: string;

  /**
   * @param message - the model-facing line produced by {@link validateArguments}.
   * @param toolName - the registered tool name.
   */
  constructor(message: string, toolName: string) {
    super(message);
    this.toolName = toolName;
  }
}

registerErrorClass(ToolArgumentsError, 'ToolArgumentsError');

/** Which stage of reading a tools file failed; lets the page pick an icon or a retry button. */
export type ToolsFileFailure =
  | 'http' // the server answered with a non-2xx status
  | 'network' // the request never got an answer
  | 'html' // the server answered an HTML page (an SPA fallback or error page) instead of JavaScript
  | 'syntax' // the file does not parse
  | 'runtime' // top-level code threw
  | 'definition' // a tool() call was rejected
  | 'empty'; // the file ran but registered no tool

/**
 * A tools file (or string) that could not be loaded. The message always starts with
 * `Could not load tools from <path>:` and names the cause; the previous tool set is left in place.
 */
export class ToolsFileError extends NexusError {
  override readonly name = 'ToolsFileError';
  /** The URL or source name the tools came from, as the user wrote it. */
  readonly source: string;
  /** The stage that failed. */
  readonly failure: ToolsFileFailure;
  /** 1-based line in the file, when the failure could be pinned to one. */
  readonly line: number | undefined;

  /**
   * @param source - the URL or source name, repeated at the start of the message.
   * @param failure - which stage failed.
   * @param detail - what went wrong and what to do, without the `Could not load…` prefix.
   * @param options - the 1-based `line`, when known, and the underlying `cause`.
   */
  constructor(source: string, failure: ToolsFileFailure, detail: string, options: { line?: number | undefined; cause?: unknown } = {}) {
    const where = options.line === undefined ? '' : `line ${options.line}: `;
    super(
      `Could not load tools from ${source}: ${where}${detail}`,
      // Only set `cause` when there is one, so `'cause' in error` stays meaningful.
      'cause' in options ? { cause: options.cause } : undefined,
    );
    this.source = source;
    this.failure = failure;
    this.line = options.line;
  }
}

registerErrorClass(ToolsFileError, 'ToolsFileError');

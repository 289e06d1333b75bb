import type { McpServerEntry } from './mcp-options.ts';
import { ToolNames } from '../toolcalls/tool-names.ts';
import { ToolDefinitionError } from './errors.ts';
import { createToolContext, type ToolContext } from './tool-context.ts';
import {
  assertToolName,
  describeValue,
  expandParameters,
  isPlainObject,
  promptParameters,
  type ArgsOf,
  type ObjectSchema,
  type ParameterNames,
  type ParametersInput,
  type ToolSchema,
} from './tool-schema.ts';
import { hasSchemaRefs, inlineSchemaRefs } from './schema-refs.ts';
import { assertCheckable, validateArguments } from './validate-arguments.ts';

/**
 * A tool's implementation. It receives validated, coerced arguments and a {@link ToolContext};
 * it may return anything JSON-serializable, or a promise of it. Throwing is the way to report a
 * failure the model should see ("City 'Atlantis' was not found…").
 */
export type ToolHandler<A = Record<string, unknown>> = (args: A, context: ToolContext) => unknown;

/** The fifth argument of `tool()`. */
export interface ToolOptions<R extends string = string> {
  /** Parameters the model must give. Default: every parameter. */
  readonly required?: readonly R[];
  /** Run only after the user approves the call in the page; the model has no say. */
  readonly confirm?: boolean;
  /** The tool only reads (no side effects); the loop may run such calls more freely. */
  readonly readOnly?: boolean;
  /** Always offered to the model, even when there are so many tools that each answer offers only the best matches. */
  readonly alwaysOffer?: boolean;
  /**
   * The kind of tool this is ("calendar", "smart home"). With many tools, when neither ranking is
   * sure which tool a message needs, the chat model picks a group. Default: derived from the name.
   */
  readonly group?: string;
}

const OPTION_NAMES: readonly string[] = ['required', 'confirm', 'readOnly', 'alwaysOffer', 'group'];

/** A registered tool, as the registry stores it. Immutable, so snapshots can share it. */
export interface RegisteredTool {
  /** The registered spelling. */
  readonly name: string;
  /** What the model reads to decide whether to call the tool. */
  readonly description: string;
  /** The expanded parameters, exactly as emitted in {@link RegisteredTool.schema}. */
  readonly parameters: ObjectSchema;
  /** The implementation; call it through {@link ToolRegistry.runTool}, which validates first. */
  readonly handler: ToolHandler;
  /** Runs only after the user approves; see {@link ToolOptions.confirm}. */
  readonly confirm: boolean;
  /** Declared free of side effects; see {@link ToolOptions.readOnly}. */
  readonly readOnly: boolean;
  /** Offered on every answer; see {@link ToolOptions.alwaysOffer}. */
  readonly alwaysOffer: boolean;
  /** Its declared group; see {@link ToolOptions.group}. */
  readonly group?: string;
  /** The OpenAI function envelope rendered into the chat template. */
  readonly schema: ToolSchema;
}

/** A saved tool set; see {@link ToolRegistry.snapshot}. */
export interface ToolSnapshot {
  readonly tools: readonly RegisteredTool[];
}

/**
 * Why {@link ToolRegistry.runTool} did not produce a result: the one outcome vocabulary of a tool
 * call, shared by the loop's call records (`CallStatus`) and the facade.
 */
export type ToolRunFailure =
  | 'unknown' // no registered tool has that name, even ignoring case
  | 'invalid' // the arguments failed validation; the message says how to fix them
  | 'refused' // a `confirm` tool that the user refused (or that nobody could ask about)
  | 'aborted' // the signal was aborted before or while the handler ran
  | 'error'; // the handler threw

/** The outcome of {@link ToolRegistry.runTool}; `error` is one line meant for the model. */
export type ToolRunResult =
  | {
      readonly ok: true;
      /** The registered spelling of the tool name. */
      readonly name: string;
      /** The arguments the handler received, after coercion. */
      readonly arguments: Record<string, unknown>;
      readonly result: unknown;
      /** What the handler gave the page beside its result (`withDetails`): never shown to the model. */
      readonly details?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly ok: false;
      /** The registered spelling, or the name as given for `unknown_tool`. */
      readonly name: string;
      readonly failure: ToolRunFailure;
      readonly error: string;
      /** What the handler threw, for diagnostics; never shown to the model as such. */
      readonly cause?: unknown;
    };

/**
 * The set of tools a chat offers: registration with shorthand schemas, the emitted OpenAI
 * envelopes, lookup, and running a call with validation.
 *
 * @example
 * ```ts
 * const tools = new ToolRegistry()
 *   .tool('get_weather', 'Get current weather for a city', { city: 'string' }, async ({ city }, { fetch }) => …)
 *   .tool('search', 'Search the catalog', { q: 'string', limit: { type: 'number' } }, search, { required: ['q'] });
 * tools.schemas; // [{ type: 'function', function: { name: 'get_weather', … } }, …]
 * await tools.runTool('get_weather', { city: 'Chennai' }); // { ok: true, result: … }
 * ```
 */
export class ToolRegistry {
  /** Keyed by registered spelling; iteration order is registration order, which the template keeps. */
  #tools = new Map<string, RegisteredTool>();

  /**
   * The MCP servers the last tools file declared with `mcp(url, options)` (see `loadTools`); a chat
   * connects them and their tools join this registry while they answer.
   */
  mcpServers: readonly McpServerEntry[] = [];

  /**
   * Registers a tool.
   *
   * @param name - 1 to 64 letters, digits, `_` or `-`, starting with a letter or `_`; unique ignoring case.
   * @param description - what the tool does; the model reads it to decide whether to call it.
   * @param parameters - shorthand (`{ city: 'string', tags: 'string[]' }`), full property schemas
   *   (`{ limit: { type: 'number', description: 'max results' } }`), or a complete
   *   `{ type: 'object', properties, required }` schema. `{}` for a tool without parameters.
   * @param handler - `(args, context) => result`, sync or async.
   * @param options - `required` (default: every parameter), `confirm`, `readOnly`, `alwaysOffer`.
   * @returns this registry, so registrations chain.
   * @throws ToolDefinitionError for a malformed or duplicate name, an empty description, a handler
   *   that is not a function, an unknown parameter type, a `required` entry that is not a parameter,
   *   or an unknown option.
   */
  tool<const S extends ParametersInput, const R extends ParameterNames<S> = ParameterNames<S>>(
    name: string,
    description: string,
    parameters: S,
    handler: ToolHandler<ArgsOf<S, R>>,
    options?: ToolOptions<R>,
  ): this {
    const tool = defineTool(name, description, parameters, handler, options);
    const existing = this.resolveName(tool.name);
    if (existing !== undefined) {
      const caseNote = existing === tool.name ? '' : ` as '${existing}' (names are compared ignoring case, because models change the case)`;
      throw new ToolDefinitionError(
        `A tool named '${tool.name}' is already registered${caseNote}. Use a different name, or call unregister('${existing}') first.`,
        tool.name,
      );
    }
    this.#tools.set(tool.name, tool);
    return this;
  }

  /** The OpenAI envelopes of every registered tool, in registration order. */
  get schemas(): ToolSchema[] {
    return [...this.#tools.values()].map((tool) => tool.schema);
  }

  /** Registered names, in registration order. */
  get names(): string[] {
    return [...this.#tools.keys()];
  }

  /** How many tools are registered. */
  get size(): number {
    return this.#tools.size;
  }

  /**
   * The tool registered under exactly `name`.
   *
   * @param name - the registered spelling; use {@link ToolRegistry.resolveName} for a model-written name.
   */
  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** True when a tool is registered under exactly `name`. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /**
   * The registered spelling of a name a model wrote: the exact name, else the one registered name
   * equal to it ignoring case, else `undefined`. Never a near miss: calling `delete_account` because
   * the model asked for `delete_acount` is worse than calling nothing.
   *
   * @param name - the name as written.
   */
  resolveName(name: string): string | undefined {
    // The one name rule, shared with the parser and the loop (toolcalls/tool-names.ts).
    return ToolNames.from([...this.#tools.keys()])?.resolve(name);
  }

  /**
   * Removes the tool registered under exactly `name`.
   *
   * @returns whether a tool was removed.
   */
  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** Removes every tool. */
  clear(): void {
    this.#tools.clear();
  }

  /**
   * Saves the current tool set, e.g. around a self-check that registers a throwaway tool.
   * Cheap: registered tools are immutable and shared.
   */
  snapshot(): ToolSnapshot {
    return Object.freeze({ tools: Object.freeze([...this.#tools.values()]) });
  }

  /**
   * Replaces the current tool set with a saved one.
   *
   * @param snapshot - from {@link ToolRegistry.snapshot} of this or another registry.
   */
  restore(snapshot: ToolSnapshot): void {
    this.#tools = new Map(snapshot.tools.map((tool) => [tool.name, tool]));
  }

  /**
   * Runs one call the way the loop needs it: resolves the name (exact or ignoring case), validates
   * and coerces the arguments, asks for approval when the tool is `confirm`, runs the handler.
   * Never throws for a failure of the call itself: every failure comes back as
   * `{ ok: false, failure, error }` with `error` written for the model to act on.
   *
   * @param name - the tool name as the model wrote it.
   * @param rawArgs - the arguments as parsed (an object, a JSON string, or nothing).
   * @param context - `fetch`, `signal` and `approve` for the handler; `fetch` defaults to `globalThis.fetch`.
   */
  async runTool(name: string, rawArgs: unknown, context: Partial<ToolContext> = {}): Promise<ToolRunResult> {
    const registered = this.resolveName(name);
    const tool = registered === undefined ? undefined : this.#tools.get(registered);
    if (tool === undefined) {
      const available = this.size === 0 ? 'No tools are available.' : `Available: ${this.names.join(', ')}.`;
      return { ok: false, name, failure: 'unknown', error: `Tool '${name}' is not available. ${available}` };
    }

    const validated = validateArguments(tool, rawArgs);
    if (!validated.ok) return { ok: false, name: tool.name, failure: 'invalid', error: validated.message };
    const args = validated.arguments;
    const fullContext = createToolContext(context);
    const aborted = (): ToolRunResult => ({
      ok: false,
      name: tool.name,
      failure: 'aborted',
      error: `The call to ${tool.name} was stopped by the user.`,
      cause: fullContext.signal?.reason,
    });
    // A function, not an inline test: the flag changes across the awaits below.
    const isAborted = (): boolean => fullContext.signal?.aborted === true;
    if (isAborted()) return aborted();

    if (tool.confirm) {
      const declined = await askApproval(tool.name, args, fullContext);
      if (declined !== undefined) return { ok: false, name: tool.name, failure: 'refused', error: declined };
      if (isAborted()) return aborted();
    }

    try {
      const returned: unknown = await tool.handler(args, fullContext);
      if (returned instanceof ToolReturn) return { ok: true, name: tool.name, arguments: args, result: returned.result, details: returned.details };
      return { ok: true, name: tool.name, arguments: args, result: returned };
    } catch (error) {
      if (isAborted()) return aborted();
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, name: tool.name, failure: 'error', error: `${tool.name} failed: ${message}`, cause: error };
    }
  }
}

/** Returns why the call may not run, or `undefined` when the user approved it. */
async function askApproval(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string | undefined> {
  if (context.approve === undefined) {
    // Refusing is the safe default: a `confirm` tool must never run just because a caller forgot
    // to wire the approval dialog.
    return `${name} needs the user's approval and none could be asked, so it was not run. Answer without it.`;
  }
  try {
    if (await context.approve({ name, arguments: args })) return undefined;
  } catch {
    // A dialog that fails is not an approval.
  }
  return `The user declined to run ${name}. Do not call it again; answer without it.`;
}

/**
 * Validates one registration and builds its immutable record. Shared by {@link ToolRegistry.tool}
 * and nothing else, but kept apart so the checks read top to bottom.
 */
function defineTool(name: unknown, description: unknown, parameters: unknown, handler: unknown, options: unknown): RegisteredTool {
  assertToolName(name);
  if (typeof description !== 'string' || description.trim() === '') {
    throw new ToolDefinitionError(
      `The description of tool '${name}' must be a non-empty string, got ${describeValue(description)}. Say what the tool does: the model reads it to decide when to call it.`,
      name,
    );
  }
  if (typeof handler !== 'function') {
    throw new ToolDefinitionError(
      `The handler of tool '${name}' must be a function such as async (args) => result, got ${describeValue(handler)}. Pass it as the fourth argument of tool().`,
      name,
    );
  }
  if (options !== undefined && !isPlainObject(options)) {
    throw new ToolDefinitionError(`The options of tool '${name}' must be an object such as { required: ['city'] }, got ${describeValue(options)}.`, name);
  }
  const given: Record<string, unknown> = isPlainObject(options) ? options : {};
  for (const key of Object.keys(given)) {
    // A misspelt `require:` would otherwise be ignored and silently make every parameter required.
    if (!OPTION_NAMES.includes(key)) {
      throw new ToolDefinitionError(`Unknown option '${key}' for tool '${name}'. Use one of: ${OPTION_NAMES.join(', ')}.`, name);
    }
  }
  for (const flag of ['confirm', 'readOnly', 'alwaysOffer'] as const) {
    if (given[flag] !== undefined && typeof given[flag] !== 'boolean') {
      throw new ToolDefinitionError(`The ${flag} option of tool '${name}' must be true or false, got ${describeValue(given[flag])}.`, name);
    }
  }

  if (given.group !== undefined && (typeof given.group !== 'string' || !given.group.trim())) {
    throw new ToolDefinitionError(`The group option of tool '${name}' must be a non-empty string such as 'calendar', got ${describeValue(given.group)}.`, name);
  }

  const whole = isPlainObject(parameters) && hasSchemaRefs(parameters) ? inlineSchemaRefs(parameters, { toolName: name }) : parameters;
  const expanded = expandParameters(name, whole, given.required);
  // Every reference left (a recursion, or one written inside a shorthand map) must point somewhere.
  if (hasSchemaRefs(expanded)) inlineSchemaRefs(expanded, { toolName: name });
  assertCheckable({ name, parameters: expanded });
  const schema: ToolSchema = Object.freeze({
    type: 'function',
    function: Object.freeze({ name, description, parameters: promptParameters(expanded) }),
  });
  return Object.freeze({
    name,
    description,
    parameters: expanded,
    // The generic `tool()` signature types the handler's arguments from the schema; validation
    // guarantees that shape at run time, so storing it under the general type is sound.
    handler: handler as ToolHandler,
    confirm: given.confirm === true,
    readOnly: given.readOnly === true,
    alwaysOffer: given.alwaysOffer === true,
    ...(typeof given.group === 'string' ? { group: given.group.trim() } : {}),
    schema,
  });
}

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

/** Marks errors of this library across bundles and realms, where `instanceof` fails. */
const NEXUS_ERROR: unique symbol = Symbol.for('browser-llm-nexus.error');

/**
 * Base class of every error this library throws on purpose.
 *
 * Errors cross the worker boundary as plain `{ name, message }`, so identity checks
 * use the `name` (and a registry-wide symbol marker) rather than `instanceof`, which
 * fails across realms and bundles.
 */
export class NexusError extends Error {
  /** Marker that survives bundling twice; see {@link NexusError.isInstance}. */
  readonly [NEXUS_ERROR] = true;

  /**
   * Subclasses override this with a string literal: class names do not survive minification,
   * and the name is what identifies an error after it crosses the worker boundary.
   */
  override readonly name: string = 'NexusError';

  /** True for any NexusError, including one built in another bundle or realm. */
  static isInstance(value: unknown): value is NexusError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[NEXUS_ERROR] === true;
  }
}

/** The shape in which an error crosses a worker or process boundary. */
export interface SerializedError {
  name: string;
  message: string;
  /** The error's own fields that are plain data (`failure`, `line`, `option`, `valid`…), so they survive too. */
  fields?: Record<string, ErrorField>;
}

/** A field value an error keeps across a boundary. */
type ErrorField = string | number | boolean | null | readonly (string | number | boolean | null)[];

const isPlainField = (value: unknown): value is ErrorField =>
  value === null ||
  ['string', 'number', 'boolean'].includes(typeof value) ||
  (Array.isArray(value) && value.length <= 100 && value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item)));

/** Flattens any thrown value into `{ name, message, fields? }` for postMessage. */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const fields: Record<string, ErrorField> = {};
  for (const [key, value] of Object.entries(error)) {
    if (key !== 'name' && key !== 'message' && key !== 'stack' && isPlainField(value)) fields[key] = value;
  }
  return Object.keys(fields).length > 0 ? { name: error.name, message: error.message, fields } : { name: error.name, message: error.message };
}

/** An error class the registry can rebuild. */
type NamedErrorClass = abstract new (...args: never[]) => Error;

const errorClasses = new Map<string, NamedErrorClass>();

/**
 * Registers a named error class, so that {@link reviveError} rebuilds an error of that name as an
 * instance of it on the other side of a worker boundary (`instanceof` then works in the page as it
 * does in Node). Each module that defines a named error registers it where it defines it.
 *
 * @param errorClass - a class whose instances carry a fixed `name`.
 * @param name - that name (class names do not survive minification).
 */
export function registerErrorClass(errorClass: NamedErrorClass, name: string): void {
  errorClasses.set(name, errorClass);
}

/**
 * Rebuilds an error that crossed a boundary: an instance of its registered class (with its fields),
 * a real `AbortError` for an abort, or a plain `Error` with the name for anything else.
 * @param error - what {@link serializeError} produced.
 */
export function reviveError(error: SerializedError): Error {
  if (error.name === 'AbortError') return new DOMException(error.message, 'AbortError');
  const errorClass = errorClasses.get(error.name);
  const revived: Error = errorClass ? (Object.create(errorClass.prototype) as Error) : new Error(error.message);
  // Instance fields (the name, the library's marker) are set by constructors, which are not run here.
  const marker = errorClass && errorClass.prototype instanceof NexusError ? { [NEXUS_ERROR]: true } : {};
  Object.assign(revived, marker, error.fields ?? {});
  Object.defineProperties(revived, {
    name: { value: error.name, enumerable: true, writable: false, configurable: true },
    message: { value: error.message, enumerable: false, writable: true, configurable: true },
    stack: { value: `${error.name}: ${error.message}\n    (raised in the model worker)`, enumerable: false, writable: true, configurable: true },
  });
  return revived;
}

/**
 * An option given a value it does not take (a `strategy`, `toolChoice`, dtype, device or family id):
 * the message names the option, the value and every valid one.
 */
export class InvalidOptionError extends NexusError {
  override readonly name = 'InvalidOptionError';
  /** The option, as the caller wrote it (`strategy`, `--dtypes`…). */
  readonly option: string;
  /** The values it takes. */
  readonly valid: readonly string[];

  /**
   * @param option - the option's name.
   * @param value - what was given.
   * @param valid - what it takes.
   */
  constructor(option: string, value: unknown, valid: readonly string[]) {
    super(`${option}: ${describe(value)} is not a valid value. Use one of: ${valid.map((v) => `'${v}'`).join(', ')}.`);
    this.option = option;
    this.valid = [...valid];
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Returns `value` when it is one of `valid`, else throws {@link InvalidOptionError}.
 * @param option - the option's name, for the message.
 * @param value - what was given.
 * @param valid - the values it takes.
 */
export function checkOption<T extends string>(option: string, value: unknown, valid: readonly T[]): T {
  if (typeof value === 'string' && (valid as readonly string[]).includes(value)) return value as T;
  throw new InvalidOptionError(option, value, valid);
}

/**
 * The model worker failed: it raised an error, died, could not deliver a message, sent one the
 * page cannot read, or was disposed while an answer was running. The message says which, and
 * what to do; the conversation is kept as it was before the answer.
 */
export class ModelWorkerError extends NexusError {
  override readonly name = 'ModelWorkerError';
}

registerErrorClass(NexusError, 'NexusError');
registerErrorClass(ModelWorkerError, 'ModelWorkerError');
registerErrorClass(InvalidOptionError, 'InvalidOptionError');

/** The message of anything thrown (an Error's message, else its string form). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

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
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[NEXUS_ERROR] === true
    );
  }
}

/** The shape in which an error crosses a worker or process boundary. */
export interface SerializedError {
  name: string;
  message: string;
}

/** Flattens any thrown value into `{ name, message }` for postMessage. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/**
 * The model worker failed: it raised an error, died, could not deliver a message, sent one the
 * page cannot read, or was disposed while an answer was running. The message says which, and
 * what to do; the conversation is kept as it was before the answer.
 */
export class ModelWorkerError extends NexusError {
  override readonly name = 'ModelWorkerError';
}

/** The message of anything thrown (an Error's message, else its string form). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

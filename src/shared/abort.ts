/** The error every abortable operation rejects with, as `fetch` does: a `DOMException` named `AbortError`. */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('The answer was stopped.', 'AbortError');
}

/** True for the abort error of {@link abortError}, `fetch` and `AbortSignal.abort()`. */
export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** Throws the abort error when `signal` is aborted. */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

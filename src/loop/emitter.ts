/** A listener for event `K` of map `E`. */
export type Listener<E, K extends keyof E> = E[K] extends unknown[] ? (...args: E[K]) => void : never;

/** How listeners are stored once their event's types have been checked at `on()`. */
type AnyListener = (...args: unknown[]) => void;

/**
 * A minimal typed event emitter. A listener that throws does not break the loop that emits:
 * the error is reported on the console and the others still run.
 */
export class Emitter<E extends { [K in keyof E]: unknown[] }> {
  private readonly listeners = new Map<keyof E, Set<AnyListener>>();

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof E>(event: K, listener: Listener<E, K>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as unknown as AnyListener);
    return () => this.off(event, listener);
  }

  off<K extends keyof E>(event: K, listener: Listener<E, K>): void {
    this.listeners.get(event)?.delete(listener as unknown as AnyListener);
  }

  emit<K extends keyof E>(event: K, ...args: E[K]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        listener(...(args as unknown[]));
      } catch (error) {
        console.error(`A '${String(event)}' listener threw:`, error);
      }
    }
  }

  /** Takes every listener away (and returns them, so they can be put back). */
  detachAll(): Map<keyof E, Set<AnyListener>> {
    const saved = new Map(this.listeners);
    this.listeners.clear();
    return saved;
  }

  /** Puts back what {@link detachAll} took. */
  reattach(saved: Map<keyof E, Set<AnyListener>>): void {
    this.listeners.clear();
    for (const [event, set] of saved) this.listeners.set(event, set);
  }
}

/** What one tab tells the others it changed in storage; they read it again. */
export type TabMessage =
  | { readonly kind: 'settings' }
  | { readonly kind: 'web' }
  | { readonly kind: 'mcp' }
  /** The saved list changed (a conversation added, renamed, deleted). */
  | { readonly kind: 'conversations' }
  /** One conversation changed. */
  | { readonly kind: 'conversation'; readonly id: string };

/**
 * How the page's tabs keep one truth: they tell each other what they saved, and one tab at a time
 * answers in a conversation. In a browser: a `BroadcastChannel` and Web Locks.
 */
export interface TabSync {
  /** Tells the other tabs (never this one). */
  post(message: TabMessage): void;
  /** Calls `listener` with what another tab posted; returns the unsubscribe function. */
  subscribe(listener: (message: TabMessage) => void): () => void;
  /**
   * Runs `work` holding the conversation's lock: while another tab answers in it, `onWait` is
   * called once and `work` starts when that tab is done. Aborting `signal` while waiting gives up
   * the wait (the promise rejects with the abort reason) and `work` never runs.
   */
  withConversation<T>(id: string, options: WaitOptions, work: () => Promise<T>): Promise<T>;
  /** Whether a tab is answering in the conversation now. */
  isAnswering(id: string): Promise<boolean>;
}

/** How {@link TabSync.withConversation} waits for another tab. */
interface WaitOptions {
  /** Called once when another tab holds the conversation, before waiting for it. */
  onWait?: () => void;
  /** Gives up the wait. */
  signal?: AbortSignal;
}

const lockName = (id: string) => `nexus-chat:conversation:${id}`;

/**
 * The browser's: a `BroadcastChannel` named after the app, and Web Locks. Where either is missing
 * (an old browser, a test page without them) the tab works alone, as before.
 * @param channelName - the channel (one per storage database, so two apps on one origin stay apart).
 */
export function browserTabSync(channelName = 'nexus-chat'): TabSync {
  const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(channelName);
  const locks = globalThis.navigator?.locks;
  const listeners = new Set<(message: TabMessage) => void>();
  channel?.addEventListener('message', (event: MessageEvent<TabMessage>) => {
    for (const listener of listeners) listener(event.data);
  });
  return {
    post: (message) => channel?.postMessage(message),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async withConversation(id, { onWait, signal }, work) {
      signal?.throwIfAborted();
      if (!locks) return work();
      // Asked first without waiting, so the user is told at once why nothing happens yet.
      const done = await locks.request(lockName(id), { ifAvailable: true }, async (lock) => (lock ? { value: await work() } : undefined));
      if (done) return done.value;
      onWait?.();
      return locks.request(lockName(id), signal ? { signal } : {}, () => work());
    },
    async isAnswering(id) {
      if (!locks) return false;
      const { held = [] } = await locks.query();
      return held.some((lock) => lock.name === lockName(id));
    },
  };
}

/** Tabs in one process (Node tests): every sync made by it hears the others; locks are promise queues. */
export function localTabSyncs(): () => TabSync {
  const all = new Set<(message: TabMessage) => void>();
  const held = new Map<string, Promise<void>>();
  return () => {
    const mine = new Set<(message: TabMessage) => void>();
    const deliver = (message: TabMessage) => {
      for (const listener of mine) listener(message);
    };
    all.add(deliver);
    return {
      post(message) {
        for (const other of all) if (other !== deliver) queueMicrotask(() => other(structuredClone(message)));
      },
      subscribe(listener) {
        mine.add(listener);
        return () => mine.delete(listener);
      },
      async withConversation(id, { onWait, signal }, work) {
        signal?.throwIfAborted();
        const before = held.get(id);
        if (before) onWait?.();
        const given = new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
        given.catch(() => undefined);
        const run = Promise.race([before, given]).then(work);
        // The next tab waits for this one and for the one before it: a wait given up keeps its place empty.
        const tail = Promise.allSettled([before, run]).then(() => undefined);
        held.set(id, tail);
        try {
          return await run;
        } finally {
          if (held.get(id) === tail) held.delete(id);
        }
      },
      isAnswering: async (id) => held.has(id),
    };
  };
}

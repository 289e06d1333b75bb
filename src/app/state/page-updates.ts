/**
 * The page's service worker: after the first visit the page, its model worker and the ONNX Runtime
 * files it self-hosts load without a network (the model's own files stay in the cache
 * transformers.js keeps). A new version installs beside the running one and waits: it is announced,
 * and takes over when the page is left while idle (a reload) or when the user asks, never mid-answer.
 */

/** What {@link registerPageWorker} needs from the page. */
export interface PageWorkerOptions {
  /** The service worker script (the build writes `sw.js` next to the page). */
  scriptUrl: string;
  /** A new version is installed and waits for the next reload. */
  onUpdateReady(): void;
  /** Nothing runs that a new version would break: no answer, no message waiting to be sent. */
  isIdle(): boolean;
  /** The browser's; a test may pass its own. */
  container?: ServiceWorkerContainer;
  /** Where `pagehide` is listened for; the window by default. */
  events?: Pick<EventTarget, 'addEventListener'>;
  /** Reloads the page once the new version controls it. */
  reload?: () => void;
}

/** A registered page worker. */
export interface PageWorker {
  /** Lets the waiting version take over now and reloads into it; ignored while the page is busy. */
  applyUpdate(): void;
}

/** The message Workbox's generated worker (`registerType: 'prompt'`) answers by taking over. */
const SKIP_WAITING = { type: 'SKIP_WAITING' } as const;

/**
 * Registers the page's service worker and watches for a new version of it. Returns undefined where
 * the browser has none (an insecure origin, a private window that forbids them).
 */
export function registerPageWorker(options: PageWorkerOptions): PageWorker | undefined {
  const container = options.container ?? globalThis.navigator?.serviceWorker;
  if (!container) return undefined;
  let waiting: ServiceWorker | undefined;
  const found = (worker: ServiceWorker | null) => {
    // The first install (no page controlled yet) is not an update: there is nothing to announce.
    if (!worker || !container.controller || worker === waiting) return;
    waiting = worker;
    options.onUpdateReady();
  };
  const untilInstalled = (installing: ServiceWorker | null) =>
    installing?.addEventListener('statechange', () => {
      if (installing.state === 'installed') found(installing);
    });
  const watch = (registration: ServiceWorkerRegistration) => {
    found(registration.waiting);
    // An update the browser found before `register()` resolved is installing now: its `updatefound` has fired.
    untilInstalled(registration.installing);
    registration.addEventListener('updatefound', () => untilInstalled(registration.installing));
  };
  // `updateViaCache: 'none'`: the browser asks the server for sw.js itself on every check, so a
  // deployed version is seen on the next visit, not after the HTTP cache expires.
  container.register(options.scriptUrl, { updateViaCache: 'none' }).then(watch, () => undefined);
  (options.events ?? globalThis).addEventListener('pagehide', () => {
    if (waiting && options.isIdle()) waiting.postMessage(SKIP_WAITING);
  });
  const reload = options.reload ?? (() => location.reload());
  return {
    applyUpdate() {
      if (!waiting || !options.isIdle()) return;
      container.addEventListener('controllerchange', () => reload(), { once: true });
      waiting.postMessage(SKIP_WAITING);
    },
  };
}

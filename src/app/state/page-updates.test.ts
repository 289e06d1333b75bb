import { describe, expect, it } from 'vitest';
import { registerPageWorker, type PageWorkerOptions } from './page-updates.ts';

/**
 * A service worker stand-in: the browser's ServiceWorker objects cannot be made in Node. Only what
 * registerPageWorker touches: `state`, `statechange`, `postMessage`.
 */
class FakeWorker extends EventTarget {
  readonly messages: unknown[] = [];
  state: ServiceWorkerState = 'installing';
  postMessage(message: unknown): void {
    this.messages.push(message);
  }
  install(): void {
    this.state = 'installed';
    this.dispatchEvent(new Event('statechange'));
  }
}

/** A registration and its container: `controller` set means a version already runs this page. */
function fakeBrowser({ controlled, waiting }: { controlled: boolean; waiting?: FakeWorker }) {
  const registration = Object.assign(new EventTarget(), { waiting: waiting ?? null, installing: null as FakeWorker | null });
  const container = Object.assign(new EventTarget(), {
    controller: controlled ? {} : null,
    registered: [] as { url: string; options: unknown }[],
    async register(url: string, options: unknown) {
      container.registered.push({ url, options });
      return registration;
    },
  });
  const page = new EventTarget();
  const newVersion = () => {
    const worker = new FakeWorker();
    registration.installing = worker;
    registration.dispatchEvent(new Event('updatefound'));
    worker.install();
    return worker;
  };
  return { registration, container, page, newVersion };
}

/** Registers against the fake browser, counting announcements; `options` overrides the rest. */
function registerIn(browser: ReturnType<typeof fakeBrowser>, options: Partial<PageWorkerOptions> = {}) {
  const counts = { announced: 0 };
  const worker = registerPageWorker({
    scriptUrl: '/sw.js',
    onUpdateReady: () => counts.announced++,
    isIdle: () => true,
    container: browser.container as unknown as ServiceWorkerContainer,
    events: browser.page,
    ...options,
  });
  return { counts, worker };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('registerPageWorker', () => {
  it('registers the worker, asking the server for it on every check, and announces nothing on the first install', async () => {
    const browser = fakeBrowser({ controlled: false });
    const { counts } = registerIn(browser);
    await settle();
    expect(browser.container.registered).toEqual([{ url: '/sw.js', options: { updateViaCache: 'none' } }]);
    browser.newVersion();
    expect(counts.announced).toBe(0);
  });

  it('announces a new version once, and lets it take over when the page is left idle, never mid-answer', async () => {
    const browser = fakeBrowser({ controlled: true });
    let idle = false;
    const { counts } = registerIn(browser, { isIdle: () => idle });
    await settle();
    const worker = browser.newVersion();
    expect(counts.announced).toBe(1);
    // Left while answering: the running version stays.
    browser.page.dispatchEvent(new Event('pagehide'));
    expect(worker.messages).toEqual([]);
    idle = true;
    browser.page.dispatchEvent(new Event('pagehide'));
    expect(worker.messages).toEqual([{ type: 'SKIP_WAITING' }]);
  });

  it('announces a version that was already waiting, and on request takes over and reloads once it controls the page', async () => {
    const waiting = new FakeWorker();
    waiting.state = 'installed';
    const browser = fakeBrowser({ controlled: true, waiting });
    let reloads = 0;
    let idle = false;
    const { counts, worker } = registerIn(browser, { isIdle: () => idle, reload: () => reloads++ });
    await settle();
    expect(counts.announced).toBe(1);
    worker?.applyUpdate();
    expect(waiting.messages).toEqual([]);
    idle = true;
    worker?.applyUpdate();
    expect(waiting.messages).toEqual([{ type: 'SKIP_WAITING' }]);
    expect(reloads).toBe(0);
    browser.container.dispatchEvent(new Event('controllerchange'));
    expect(reloads).toBe(1);
  });

  it('announces a version whose install began before the page was watching, once it is installed (issue 70)', async () => {
    // The update found before `register()` resolved: its `updatefound` has fired, the new version is still installing.
    const browser = fakeBrowser({ controlled: true });
    const installing = new FakeWorker();
    browser.registration.installing = installing;
    const { counts } = registerIn(browser);
    await settle();
    expect(counts.announced).toBe(0);
    installing.install();
    expect(counts.announced).toBe(1);
  });

  it('does nothing where the browser has no service workers', () => {
    expect(registerPageWorker({ scriptUrl: '/sw.js', onUpdateReady: () => {}, isIdle: () => true, container: undefined })).toBeUndefined();
  });
});

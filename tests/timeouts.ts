/**
 * Every timeout a test names, in one place, sized for this project's CI: a 2-core machine that may be
 * running another CPU-bound job beside the tests (a test must pass there, not only on an idle machine).
 * The tiers' defaults (vite.config.ts) come from here too. `NEXUS_TEST_TIME_SCALE` multiplies them all,
 * for a machine slower still.
 *
 * These are limits for a test that hangs, never measurements: a test asserts behaviour, not time.
 */
const scale = Math.max(1, Number(process.env.NEXUS_TEST_TIME_SCALE ?? '1') || 1);

const base = {
  /** A pure test: no model, no process, no socket (the unit tier's default). */
  unitTest: 15_000,
  /** A test on loopback servers: TLS, Redis, searx, the proxy, an MCP server (the network tier's default). */
  networkTest: 60_000,
  /** Starting a process or a server for a file (searx, Redis, a proxy instance, Vite, an MCP server). */
  processStart: 90_000,
  /** Installing a Debian package on a fresh machine (searx, Redis) and starting it, once per file. */
  install: 600_000,
  /** Loading a file's fixture models, once, in `beforeAll` (the models tier's hook default). */
  modelLoad: 180_000,
  /** One test that generates with loaded models (the models tier's default). */
  modelTest: 120_000,
  /** A test that loads several models itself, one after another (the CLI's verdict over dtypes and families). */
  modelRun: 300_000,
  /** One test in Chromium (the browser tier's default). */
  browserTest: 120_000,
  /** Starting Chromium, a build or a page with a model, once per file. */
  browserHook: 180_000,
  /** A whole consumer project: install, build, and its own tests (the package and the examples). */
  consumerProject: 420_000,
  /** Waiting, inside a test, for a page or a server to react to an action (a dialog, a row, a status). */
  reacts: 10_000,
  /** Waiting for work a page or a server does after an action (a connection, a scripted answer, a file read). */
  works: 20_000,
  /** Waiting for an answer from a real model in the page, or for a server to come back. */
  answers: 60_000,
  /** Waiting for a model to load and be checked in the page. */
  loadsModel: 120_000,
  /** Waiting for a model that loads only after others failed (every dtype of a folder tried in turn). */
  loadsAfterFailures: 240_000,
} as const;

/** The named timeouts, in milliseconds, scaled. */
export const TIMEOUTS: { readonly [K in keyof typeof base]: number } = Object.freeze(
  Object.fromEntries(Object.entries(base).map(([name, ms]) => [name, ms * scale])) as { [K in keyof typeof base]: number },
);

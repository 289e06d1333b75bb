/**
 * The test suite's tiers (vitest projects in vite.config.ts), by what a file needs, so each runs with the
 * timeouts its work takes and can be run alone:
 *
 * - `unit`: pure code — no model, no process, no socket. `npm run test:unit`, well under a minute.
 * - `models`: loads fixture models or their tokenizers and templates in Node (ONNX Runtime, transformers.js).
 *   `npm run test:node-models`.
 * - `network`: loopback servers and processes — the proxy, TLS, Redis, searx, MCP servers, Vite, the CLI's
 *   bin. `npm run test:network`.
 * - `e2e`: Chromium. `npm run test:e2e`.
 *
 * A file not listed below is a unit test. A file that starts loading a model or opening a socket moves here;
 * in the unit tier transformers.js and ONNX Runtime cannot be imported at all (`tests/unit-tier-setup.ts`),
 * so a unit file that starts loading one fails, naming this list.
 */
export const MODEL_TESTS = [
  'src/ai-sdk/ai-sdk-node.test.ts',
  'src/ai-sdk/nexus-chat-transport.test.ts',
  'src/check/self-check-node.test.ts',
  'src/cli/test-models.test.ts',
  'src/engine/appended-kv-session.test.ts',
  'src/engine/check-model-folder.test.ts',
  'src/engine/detect-family.test.ts',
  // These three load transformers.js (and with it ONNX Runtime) to use its tensors, cache or environment.
  'src/engine/kv-cache.test.ts',
  'src/engine/use-source.test.ts',
  'src/worker/wasm-threads.test.ts',
  'src/engine/load-engine.test.ts',
  'src/engine/load-template.test.ts',
  'src/engine/prefill-chunks.test.ts',
  'src/engine/template-dialect.test.ts',
  'src/engine/token-transcript.test.ts',
  'src/engine/transformers-engine.test.ts',
  'src/loop/fit-context-model.test.ts',
  'src/nexus/nexus-chat.test.ts',
  'src/options.test.ts',
  'src/tools/many-tools-model.test.ts',
  'tests/fixtures/**/*.test.ts',
];

export const NETWORK_TESTS = [
  'src/proxy/**/*.test.ts',
  'src/server/**/*.test.ts',
  'src/web/**/*.test.ts',
  'src/tools/mcp-*.test.ts',
  'src/engine/diagnose-source.test.ts',
  'src/engine/download-plan.test.ts',
  'tests/proxy/**/*.test.ts',
  'tests/tools/**/*.test.ts',
  'tests/setup/**/*.test.ts',
];

export const BROWSER_TESTS = ['tests/e2e/**/*.test.ts'];

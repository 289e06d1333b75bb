/**
 * The example's build: the page, its model worker as an ES module, and `browser-llm-nexus` resolved
 * to this repository's sources (an app of your own installs the package instead and needs no alias).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const src = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  resolve: {
    alias: [
      { find: /^browser-llm-nexus\/ai-sdk$/, replacement: src('ai-sdk/index.ts') },
      { find: /^browser-llm-nexus\/worker$/, replacement: src('worker/serve-model-worker.ts') },
      { find: /^browser-llm-nexus$/, replacement: src('index.ts') },
    ],
  },
  build: { target: 'es2022', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  worker: { format: 'es' },
});

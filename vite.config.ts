/// <reference types="vitest/config" />
import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { proxyOptionsFromEnv } from './src/proxy/env-options.ts';
import { proxyVitePlugin } from './src/proxy/vite-plugin.ts';
import { createMcpRelay, mcpRelayServersFromEnv } from './src/server/mcp-relay.ts';
import { CROSS_ORIGIN_ISOLATION } from './src/server/app-server.ts';
import { devFileGuard } from './src/server/dev-file-guard.ts';
import { ON_DEMAND_ASSETS, OFFLINE_ROUTES } from './src/server/offline-routes.ts';
import { connectOriginsFromEnv, pageSecurityHeaders } from './src/server/page-policy.ts';
import { serveMcpAppSandbox } from './src/server/mcp-app-sandbox.ts';
import { BROWSER_TESTS, MODEL_TESTS, NETWORK_TESTS } from './tests/tiers.ts';
import { TIMEOUTS } from './tests/timeouts.ts';
import { minifyAppTemplates } from './src/server/minify-app-templates.ts';

const toolsFile = new URL('./tools.js', import.meta.url);

/**
 * `tools.js` stays a plain file that the page fetches at run time with `loadTools('./tools.js')`:
 * users edit it without a rebuild. So it is served verbatim in dev (Vite would otherwise
 * transform it as a module) and copied next to the page in a build.
 */
function serveToolsFile(): Plugin {
  return {
    name: 'nexus-serve-tools-js',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url?.split('?')[0] !== '/tools.js') return next();
        res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
        res.setHeader('Cache-Control', 'no-cache');
        res.end(readFileSync(toolsFile, 'utf8'));
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'tools.js', source: readFileSync(toolsFile, 'utf8') });
    },
  };
}

/**
 * Vite serves the whole project folder and answers other local origins: the server's configuration
 * (`mcp-servers.json`, `MCP_SERVERS_FILE`, `.env*`) is never served, and `tools.js` only to the page's
 * own origin (src/server/dev-file-guard.ts).
 */
/** The production build squeezes the page's lit templates (src/server/minify-app-templates.ts). */
function minifyStyles(): Plugin {
  return {
    name: 'nexus-minify-lit-templates',
    apply: 'build',
    transform(code, id) {
      const squeezed = minifyAppTemplates(code, id);
      return squeezed === undefined ? undefined : { code: squeezed, map: null };
    },
  };
}

function guardServerFiles(): Plugin {
  const attach = (server: ViteDevServer | PreviewServer) => {
    server.middlewares.use(devFileGuard(['mcp-servers.json', ...(process.env.MCP_SERVERS_FILE ? [process.env.MCP_SERVERS_FILE] : [])]));
  };
  return { name: 'nexus-guard-server-files', configureServer: attach, configurePreviewServer: attach };
}

/** The MCP app sandbox of `npm start` (its own policy, per view) in `npm run dev` and `vite preview` too. */
function serveMcpAppSandboxPage(): Plugin {
  const attach = (server: ViteDevServer | PreviewServer) => {
    server.middlewares.use((req, res, next) => {
      if (!serveMcpAppSandbox(req, res)) next();
    });
  };
  return { name: 'nexus-mcp-app-sandbox', configureServer: attach, configurePreviewServer: attach };
}

/** The MCP relay of `npm start` (`MCP_SERVERS`, `mcp-servers.json`) in `npm run dev` and `vite preview` too. */
function serveMcpRelay(): Plugin {
  const attach = (server: ViteDevServer | PreviewServer) => {
    const { token, origins } = proxyOptionsFromEnv();
    const relay = createMcpRelay({ servers: mcpRelayServersFromEnv(), guard: { ...(token ? { token } : {}), ...(origins ? { origins } : {}) } });
    server.middlewares.use((req, res, next) => {
      relay(req, res).then((handled) => (handled ? undefined : next()), next);
    });
  };
  return { name: 'nexus-mcp-relay', configureServer: attach, configurePreviewServer: attach };
}

/**
 * Installable, and usable offline after the first visit: a manifest, and a Workbox service worker
 * that precaches the page, its chunks, the model worker and the ONNX Runtime files the page hosts.
 * Model files are left alone: transformers.js keeps them in its own Cache Storage cache, which a
 * Workbox clean-up never touches (no weights cached twice, none evicted by an update).
 */
function installableOffline(): Plugin[] {
  return VitePWA({
    // Updates wait: the page announces one and it takes over on the next reload (src/app/state/page-updates.ts).
    registerType: 'prompt',
    injectRegister: false,
    includeAssets: ['favicon.svg'],
    manifest: {
      name: 'Nexus Chat',
      short_name: 'Nexus Chat',
      description: 'A chat that runs a small language model in this browser and calls tools with it.',
      start_url: './',
      scope: './',
      display: 'standalone',
      background_color: '#f7f7f8',
      theme_color: '#2f5bd3',
      icons: [{ src: 'favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
    },
    workbox: {
      globPatterns: ['**/*.{html,js,mjs,css,wasm,svg}'],
      // tools.js is the operator's to edit without a rebuild: fetched fresh when online, from the
      // runtime cache (OFFLINE_ROUTES) only when the network fails; never pinned by the precache.
      // ONNX Runtime's two builds (14 and 27 MB) and pdf.js are not precached either (issue 54: a first visit
      // downloaded 44 MiB before the user chose anything): each is cached when first used (OFFLINE_ROUTES),
      // so the build the device runs is there offline after the first model, and the other never comes.
      globIgnores: ['tools.js', ...ON_DEMAND_ASSETS],
      // No navigation fallback to the precache while the server answers: a navigation goes to the
      // network first, so the page always arrives with the server's current policy (a CONNECT_ORIGINS
      // changed since the last visit takes effect on the next reload); only offline is the precached page
      // served (issue 41).
      // (vite-plugin-pwa's default is a fallback to index.html: turned off.) Nor does the precache answer
      // "/" with its index.html, which it would before any runtime rule.
      navigateFallback: null,
      directoryIndex: null,
      cleanupOutdatedCaches: true,
      runtimeCaching: OFFLINE_ROUTES,
    },
  });
}

/** The same headers `npm start` serves: cross-origin isolation (WASM threads need it) and the page's CSP. */
const pageHeaders = { ...CROSS_ORIGIN_ISOLATION, ...pageSecurityHeaders({ connectOrigins: connectOriginsFromEnv() }) };

export default defineConfig({
  // No CORS: the page is same-origin, and no other local page may read what the dev server serves.
  server: { headers: pageHeaders, cors: false },
  preview: { headers: pageHeaders, cors: false },
  build: {
    target: 'es2022',
    // The page; the library's own build (`npm run build:lib`) writes the rest of dist/.
    outDir: 'dist/app',
    emptyOutDir: true,
    // transformers.js and ONNX Runtime are large by nature; they load in the model worker only.
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: {
        // The MCP client (the SDK and the zod it validates with) loads only when a server is
        // connected; one named chunk keeps it out of the page's own budget and easy to measure.
        // Vite's preload helper is a group of its own, first: left free, it was put in the MCP client's chunk
        // (the v2 client has lazy imports of its own), and every page then loaded the client with its first script.
        advancedChunks: {
          groups: [
            { name: 'preload-helper', test: /vite\/preload-helper/ },
            { name: 'mcp-client', test: /node_modules[\\/](?:@modelcontextprotocol[\\/](?!ext-apps)|zod|pkce-challenge|eventsource)/ },
            // MCP Apps' host bridge: loaded with the first tool call that has a view (mcp-app-view.ts), not with the client;
            // after the client's group, which keeps the SDK it builds on.
            { name: 'mcp-apps', test: /node_modules[\\/]@modelcontextprotocol[\\/]ext-apps[\\/]/ },
            // The JWT library the client signs DPoP proofs and private-key assertions with: loaded by those alone.
            { name: 'mcp-signing', test: /node_modules[\\/]jose[\\/]/ },
          ],
        },
      },
    },
  },
  worker: {
    format: 'es',
  },
  // `npm run dev` serves the companion proxy and the MCP relay on the same origin, as `npm start` does.
  plugins: [guardServerFiles(), serveToolsFile(), serveMcpAppSandboxPage(), serveMcpRelay(), proxyVitePlugin(), installableOffline(), minifyStyles()],
  test: {
    // One closing line a CI log reader understands, after vitest's own summary.
    reporters: ['default', './tests/summary-reporter.ts'],
    // Two workers on a two-core machine (vitest's default here is one): unit files run beside each
    // other and beside the browser tests, which still run one file at a time (fileParallelism below).
    maxWorkers: 2,
    // A worker runs file after file without a fresh module graph for each (the unit, models and network tiers):
    // each file's own imports (transformers.js, ONNX Runtime, the MCP SDK, vitest itself) were a third of
    // those tiers' CPU (607 CPU-s against 409 alone, issue 55). Files keep no state at module level that
    // another reads; the unit tier's guard (tests/unit-tier-setup.ts) is a setup file, and runs per file.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          globalSetup: ['tests/prepare-fixtures-setup.ts'],
          // A unit file that starts loading a model fails, naming where it belongs.
          setupFiles: ['tests/unit-tier-setup.ts'],
          include: ['src/**/*.test.ts', 'tests/**/*.test.ts'],
          exclude: [...MODEL_TESTS, ...NETWORK_TESTS, ...BROWSER_TESTS, 'node_modules/**'],
          environment: 'node',
          testTimeout: TIMEOUTS.unitTest,
          hookTimeout: TIMEOUTS.unitTest,
        },
      },
      {
        extends: true,
        test: {
          name: 'models',
          globalSetup: ['tests/prepare-fixtures-setup.ts'],
          include: MODEL_TESTS,
          environment: 'node',
          testTimeout: TIMEOUTS.modelTest,
          hookTimeout: TIMEOUTS.modelLoad,
          // One ONNX Runtime thread per session: the same greedy tokens on every run, however loaded the machine.
          env: { NEXUS_ORT_THREADS: '1' },
        },
      },
      {
        extends: true,
        test: {
          name: 'network',
          globalSetup: ['tests/prepare-fixtures-setup.ts'],
          include: NETWORK_TESTS,
          environment: 'node',
          testTimeout: TIMEOUTS.networkTest,
          hookTimeout: TIMEOUTS.processStart,
          env: { NEXUS_ORT_THREADS: '1' },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: BROWSER_TESTS,
          globalSetup: ['tests/e2e/global-setup.ts'],
          testTimeout: TIMEOUTS.browserTest,
          hookTimeout: TIMEOUTS.browserHook,
          // A page's reaction that a test polls for, unless it names a longer wait: vitest's 5 s default is a
          // quiet machine's, and a loaded one ran past it (a chunk loaded on demand, then its work).
          expect: { poll: { timeout: TIMEOUTS.reacts } },
          // One Chromium at a time: the machine has two cores and software WebGPU is heavy.
          fileParallelism: false,
          // Each browser file in a fresh worker: their helpers keep browsers and figures at module level.
          isolate: true,
          // V8's baseline compiler only for ONNX Runtime's WASM (see tests/e2e/chromium.ts).
          env: { NEXUS_CHROMIUM_JS_FLAGS: '--liftoff-only' },
        },
      },
    ],
  },
});

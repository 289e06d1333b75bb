import type { IncomingMessage, ServerResponse } from 'node:http';
import { ORIGIN_SOURCE } from './page-policy.ts';

/** Where the page frames an MCP app view from (the extension's "sandbox proxy"). */
export const MCP_APP_SANDBOX_PATH = '/mcp-app-sandbox.html';

/** The sandbox flags of the proxy and the view: scripts and forms, never same-origin, top navigation or popups. */
const SANDBOX_FLAGS = 'allow-scripts allow-forms';

/** Most entries per list of domains a view may declare (as the page's own reader bounds them). */
const MAX_DOMAINS = 32;

/**
 * The proxy document: a frame of the page that frames the view (`srcdoc`, sandboxed again) and passes JSON-RPC
 * messages between the two, as the extension's web-host rules say (the host never frames the view itself). It
 * takes the view's HTML once, only from its parent, and passes on nothing of its own `ui/notifications/sandbox-*`
 * methods. Posting to `parent` with `'*'` is safe here: `frame-ancestors 'self'` lets only the page's own origin
 * be that parent. Opened on its own, it does nothing.
 */
const PROXY_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MCP app</title>
<style>html,body{margin:0;height:100%;overflow:hidden;background:transparent}iframe{display:block;border:0;width:100%;height:100%}</style>
</head><body><script>
(() => {
  const OWN = 'ui/notifications/sandbox-';
  if (window.parent === window) {
    document.body.textContent = 'This page shows an MCP app inside Nexus Chat; on its own it does nothing.';
    return;
  }
  const view = document.createElement('iframe');
  view.setAttribute('sandbox', '${SANDBOX_FLAGS}');
  view.setAttribute('title', 'MCP app');
  let loaded = false;
  addEventListener('message', (event) => {
    const message = event.data;
    if (typeof message !== 'object' || message === null || message.jsonrpc !== '2.0') return;
    const own = typeof message.method === 'string' && message.method.startsWith(OWN);
    if (event.source === window.parent) {
      if (!own) view.contentWindow?.postMessage(message, '*');
      else if (message.method === OWN + 'resource-ready' && !loaded && typeof message.params?.html === 'string') {
        loaded = true;
        view.srcdoc = message.params.html;
        document.body.append(view);
      }
    } else if (event.source === view.contentWindow && !own) {
      window.parent.postMessage(message, '*');
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: OWN + 'proxy-ready', params: {} }, '*');
})();
</script></body></html>
`;

/** A view's declared domains, as the page passes them in the proxy's address (`?csp=` and JSON). */
interface DeclaredDomains {
  connectDomains?: unknown;
  resourceDomains?: unknown;
  frameDomains?: unknown;
  baseUriDomains?: unknown;
}

/** The origin sources of one declared list; anything that is not one is left out, so nothing can end a directive. */
function sources(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((entry): entry is string => typeof entry === 'string')
    .map((entry) => entry.trim().replace(/\/$/, ''))
    .filter((entry) => ORIGIN_SOURCE.test(entry))
    .slice(0, MAX_DOMAINS);
}

/** The domains in the proxy's address, or none where the parameter is missing or not JSON. */
function declaredDomains(url: string): DeclaredDomains {
  const raw = new URL(url, 'http://localhost').searchParams.get('csp');
  if (!raw || raw.length > 16_384) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as DeclaredDomains) : {};
  } catch {
    return {};
  }
}

/**
 * The proxy's Content-Security-Policy for a view's declared domains, which its view inherits (a `srcdoc`
 * document takes its parent's policy): inline script (a view is a single HTML file), loads only from the
 * declared origins, nothing framed, no `<base>`, no plugins or form posts, and the `sandbox` directive, so
 * even a proxy opened without its frame's `sandbox` attribute has an opaque origin. Only the page may frame it.
 *
 * @param declared - the view's `_meta.ui.csp` (`connectDomains`, `resourceDomains`, `frameDomains`, `baseUriDomains`);
 *   entries that are not origin sources are left out.
 *
 * @remarks Security: an MCP server's HTML runs here. Threats: reading the page (its conversations, its storage)
 * — the opaque origin; navigating the page away or opening windows — no `allow-top-navigation`, no popups;
 * sending the conversation it is shown to anywhere but the origins it declared — `connect-src`, `img-src` and
 * the rest; navigating its own frame to a page outside this policy — `frame-src`; and injecting a directive
 * through a declared "domain" such as `https://a.test; script-src *` — only origin sources are kept.
 */
export function mcpAppSandboxPolicy(declared: DeclaredDomains = {}): string {
  const resource = sources(declared.resourceDomains);
  const list = (values: readonly string[], fallback: string) => (values.length ? values.join(' ') : fallback);
  const loads = (...fixed: string[]) => [...fixed, ...resource].join(' ');
  return [
    `sandbox ${SANDBOX_FLAGS}`,
    "default-src 'none'",
    loads('script-src', "'unsafe-inline'"),
    loads('style-src', "'unsafe-inline'"),
    loads('img-src', 'data:', 'blob:'),
    loads('font-src', 'data:'),
    loads('media-src', 'data:', 'blob:'),
    `connect-src ${list(sources(declared.connectDomains), "'none'")}`,
    `frame-src ${list(sources(declared.frameDomains), "'none'")}`,
    `base-uri ${list(sources(declared.baseUriDomains), "'none'")}`,
    "object-src 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/**
 * Answers a request for the proxy document ({@link MCP_APP_SANDBOX_PATH}) with the policy its address asks for.
 * @returns whether the request was the proxy's (and is answered).
 */
export function serveMcpAppSandbox(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? '/';
  if (url.split('?')[0] !== MCP_APP_SANDBOX_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(PROXY_HTML),
    'Content-Security-Policy': mcpAppSandboxPolicy(declaredDomains(url)),
    // Framed by a cross-origin-isolated page, it must be as well; what the view loads goes without credentials.
    'Cross-Origin-Embedder-Policy': 'credentialless',
    'Cross-Origin-Resource-Policy': 'same-origin',
    // Set over the page's DENY where a dev server put its headers on every response first.
    'X-Frame-Options': 'SAMEORIGIN',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : PROXY_HTML);
  return true;
}

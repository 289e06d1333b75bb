/**
 * Origins the page may fetch from besides its own: the model hub and the hosts it sends downloads to, and
 * the API the shipped `tools.js` calls (Open-Meteo).
 *
 * The hub's entries are as narrow as downloads allow (issue 41): `huggingface.co` itself (a file is
 * `/<org>/<repo>/resolve/<revision>/<path>` under every organisation, and a CSP source matches paths by
 * prefix only, so its API cannot be left out), then only the download hosts its `resolve` answers redirect
 * to, as the hub lists them (https://huggingface.co/.well-known/meta.json, `lfsDomains` and `cdnDomains`,
 * checked 2026-12) plus the Xet bridge (`cas-bridge.xethub.hf.co`) — not every `*.huggingface.co` and
 * `*.hf.co` host, which took in the hub's inference and router APIs. A mirror or a new download host goes
 * in `CONNECT_ORIGINS`.
 */
const DEFAULT_CONNECT_ORIGINS: readonly string[] = [
  'https://huggingface.co',
  // Xet storage: the bridge resolve redirects to, and transfer.xethub.hf.co.
  'https://*.xethub.hf.co',
  'https://transfer.xethub-eu.hf.co',
  // LFS storage.
  'https://cdn-lfs.hf.co',
  'https://cdn-lfs-us-1.hf.co',
  'https://cdn-lfs-eu-1.hf.co',
  'https://cdn-lfs.huggingface.co',
  'https://cdn-lfs-us-1.huggingface.co',
  'https://cdn-lfs-eu-1.huggingface.co',
  // The hub's CDN: aws.cdn.hf.co, us.gcp.cdn.hf.co and their regions.
  'https://*.cdn.hf.co',
  'https://api.open-meteo.com',
  'https://geocoding-api.open-meteo.com',
];

/** Options of {@link pageSecurityHeaders}. */
export interface PagePolicyOptions {
  /**
   * More origins the page may fetch from (`CONNECT_ORIGINS`): a model hub mirror, a server with model
   * folders, an API that a `tools.js` handler calls. Each is an origin (`https://host[:port]`,
   * `https://*.host`); anything else is refused with an error naming the entry.
   */
  connectOrigins?: readonly string[];
}

/** A `connect-src` source the policy accepts: a scheme, a host (or `*.` and a host), an optional port. */
export const ORIGIN_SOURCE = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;

/**
 * The headers every page response carries: a strict Content-Security-Policy and anti-framing.
 *
 * - scripts only from the page's own origin, plus WebAssembly compilation (`'wasm-unsafe-eval'`) for
 *   ONNX Runtime; no inline script, no `eval` (the page loads `tools.js` as a module);
 * - workers from the page's origin and `blob:`; fetches to the page's origin (the proxy), the model hub
 *   and the configured origins only — so neither injected markup nor a prompt-injected model can make
 *   the page send the conversation anywhere else (images only from the page itself, `data:` and
 *   `blob:`);
 * - no framing (`frame-ancestors 'none'`, and `X-Frame-Options: DENY` for older browsers), no
 *   `<base>`, no form submissions, no plugins.
 *
 * Compatible with the cross-origin isolation headers (COOP/COEP), which are sent beside it.
 *
 * @param options - extra origins the page may fetch from.
 * @throws Error naming an entry of `connectOrigins` that is not an origin, and the form expected.
 *
 * @remarks Security: the second barrier behind DOMPurify. Threats: markup in a model's answer or a
 * page's text that gets past the sanitiser (inline script, an image whose address carries the chat,
 * a `<base>` that re-points relative addresses), and a foreign site framing the page (clickjacking).
 */
export function pageSecurityHeaders(options: PagePolicyOptions = {}): Record<string, string> {
  const extra = (options.connectOrigins ?? []).map((entry) => entry.trim().replace(/\/$/, '')).filter((entry) => entry !== '');
  for (const entry of extra) {
    if (!ORIGIN_SOURCE.test(entry)) {
      throw new Error(
        `CONNECT_ORIGINS: "${entry}" is not an origin. Give origins such as https://models.example.org, https://*.example.org or http://127.0.0.1:8080, separated by commas.`,
      );
    }
  }
  const connect = [...new Set(["'self'", ...DEFAULT_CONNECT_ORIGINS, ...extra])];
  const policy = [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self' blob:",
    `connect-src ${connect.join(' ')}`,
    "img-src 'self' data: blob:",
    // Lit and Vite's dev server set styles from script; style injection cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self' data:",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': policy,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  };
}

/**
 * The extra origins of `CONNECT_ORIGINS` (comma- or space-separated), for {@link pageSecurityHeaders}.
 * @param env - the environment (default `process.env`).
 */
export function connectOriginsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  return (env.CONNECT_ORIGINS ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
}

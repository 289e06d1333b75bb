/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865, stable 2026-01-26): a tool names a `ui://`
 * resource, an HTML view the host shows beside the call, fed the call's arguments and result. This module reads
 * what a server declares (which view a tool has, who may call it, what the view may load) and bounds it; the page
 * renders the view in its sandbox (src/server/mcp-app-sandbox.ts, src/app/elements/mcp-app-view.ts).
 */
import { NexusError, registerErrorClass } from '../shared/errors.ts';
import { isRecord, MAX_APP_RESULT_CHARS, type McpAppToolResult } from './mcp-app-call.ts';

/** The extension's identifier, under `capabilities.extensions` of the client. */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The one MIME type of an app's view. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** Most characters of a view's HTML taken (a single-file bundle with its libraries inlined is a few hundred KB). */
const MAX_APP_HTML_CHARS = 4_000_000;
/** Most entries per list of a view's declared domains. */
const MAX_DOMAINS = 32;

/** What a view may load, as its resource declares (`_meta.ui.csp`): origins, each list checked by {@link appDomains}. */
export interface McpAppDomains {
  /** Origins for fetch, XHR and WebSocket. */
  connectDomains?: string[];
  /** Origins for scripts, styles, images, fonts and media. */
  resourceDomains?: string[];
  /** Origins the view may frame. */
  frameDomains?: string[];
  /** Origins a `<base>` may point at. */
  baseUriDomains?: string[];
}

/** A view, read and checked: its HTML and what it may load. */
export interface McpAppResource {
  /** Its `ui://` address. */
  uri: string;
  html: string;
  /** The origins it declared that are origins (the rest are in `refused`). */
  domains: McpAppDomains;
  /** Declared entries that are not origins, each with why: never put into a policy. */
  refused: string[];
  /** The view asks for a border (`_meta.ui.prefersBorder`). */
  prefersBorder?: boolean;
}

/**
 * A view that cannot be shown: not a `ui://` address, not the app MIME type, too large, or a tool the view may
 * not call. The message names the problem and what is accepted.
 */
export class McpAppError extends NexusError {
  override readonly name = 'McpAppError';
}

registerErrorClass(McpAppError, 'McpAppError');

/** A tool's `_meta.ui`, or undefined. */
function uiMeta(tool: { _meta?: unknown }): Record<string, unknown> | undefined {
  const meta = tool._meta;
  return isRecord(meta) && isRecord(meta.ui) ? meta.ui : undefined;
}

/**
 * The `ui://` view a tool declares: `_meta.ui.resourceUri`, or the flat `_meta["ui/resourceUri"]` of the
 * extension's first drafts, which servers still send. Undefined for a tool without one or with another scheme.
 */
export function appUriOf(tool: { _meta?: unknown }): string | undefined {
  const meta = tool._meta;
  const uri = uiMeta(tool)?.resourceUri ?? (isRecord(meta) ? meta['ui/resourceUri'] : undefined);
  return typeof uri === 'string' && uri.startsWith('ui://') && uri.length <= 2_048 ? uri : undefined;
}

/**
 * Who may call a tool (`_meta.ui.visibility`, default both): the model, the tool's view, or both. A tool for
 * the view only is never offered to the model, as the extension requires.
 */
export function visibilityOf(tool: { _meta?: unknown }): { model: boolean; app: boolean } {
  const visibility = uiMeta(tool)?.visibility;
  if (!Array.isArray(visibility)) return { model: true, app: true };
  return { model: visibility.includes('model'), app: visibility.includes('app') };
}

/** A CSP origin source: a scheme, a host (or `*.` and a host), an optional port; nothing that could end a directive. */
const ORIGIN_SOURCE = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;

/**
 * The domains a view declared, kept where each entry is an origin source and dropped (named in `refused`) where
 * it is not: a policy is built from them, so an entry such as `https://a.test; script-src *` must never reach it.
 */
export function appDomains(csp: unknown): { domains: McpAppDomains; refused: string[] } {
  const domains: McpAppDomains = {};
  const refused: string[] = [];
  if (!isRecord(csp)) return { domains, refused };
  for (const key of ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const) {
    const list = csp[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      refused.push(`${key} is not a list of origins`);
      continue;
    }
    const kept: string[] = [];
    for (const entry of list) {
      const origin = typeof entry === 'string' ? entry.trim().replace(/\/$/, '') : '';
      if (ORIGIN_SOURCE.test(origin) && kept.length < MAX_DOMAINS) kept.push(origin);
      else refused.push(`${key}: ${JSON.stringify(entry).slice(0, 120)} is not an origin such as https://api.example.org`);
    }
    if (kept.length) domains[key] = kept;
  }
  return { domains, refused };
}

/** @throws McpAppError where `uri` is not a view's address (`ui://`). */
export function checkAppUri(uri: string): void {
  if (!uri.startsWith('ui://')) throw new McpAppError(`"${uri.slice(0, 200)}" is not an MCP app view: a view's address starts with ui://.`);
}

/**
 * A `resources/read` answer as a view: its one HTML content of the app MIME type, within {@link MAX_APP_HTML_CHARS},
 * and what it may load (`_meta.ui` of the content, else of the answer).
 * @throws McpAppError naming what is wrong: another scheme, no HTML content, another MIME type, too large.
 */
export function appResourceOf(uri: string, read: unknown): McpAppResource {
  checkAppUri(uri);
  const contents = isRecord(read) && Array.isArray(read.contents) ? read.contents.filter(isRecord) : [];
  const content = contents.find((entry) => entry.uri === uri) ?? contents[0];
  if (!content) throw new McpAppError(`The server gave no content for ${uri}.`);
  const mimeType = String(content.mimeType ?? '');
  if (mimeType.replace(/\s/g, '').toLowerCase() !== MCP_APP_MIME_TYPE) {
    throw new McpAppError(`${uri} is ${mimeType ? `of type ${mimeType}` : 'of no type'}; an MCP app view is ${MCP_APP_MIME_TYPE}.`);
  }
  const text = typeof content.text === 'string' ? content.text : typeof content.blob === 'string' ? decodeBase64(content.blob, uri) : undefined;
  if (text === undefined) throw new McpAppError(`${uri} has neither text nor a blob.`);
  if (text.length > MAX_APP_HTML_CHARS) {
    throw new McpAppError(
      `${uri} is ${text.length.toLocaleString('en-US')} characters of HTML; a view may be at most ${MAX_APP_HTML_CHARS.toLocaleString('en-US')}.`,
    );
  }
  const meta =
    (isRecord(content._meta) && isRecord(content._meta.ui) ? content._meta.ui : undefined) ??
    (isRecord(read) && isRecord(read._meta) && isRecord(read._meta.ui) ? read._meta.ui : {});
  const { domains, refused } = appDomains(meta.csp);
  return { uri, html: text, domains, refused, ...(typeof meta.prefersBorder === 'boolean' ? { prefersBorder: meta.prefersBorder } : {}) };
}

function decodeBase64(blob: string, uri: string): string {
  if (blob.length > (MAX_APP_HTML_CHARS * 4) / 3 + 4) {
    throw new McpAppError(`${uri} is larger than a view may be (${MAX_APP_HTML_CHARS.toLocaleString('en-US')} characters).`);
  }
  const bytes = Uint8Array.from(atob(blob), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/**
 * A call result as a view receives it, bounded: whole where its JSON is within {@link MAX_APP_RESULT_CHARS}, else
 * its text parts only, cut, with the structured part left out (a view then shows what the text says).
 */
export function appResultOf(result: { content?: unknown; structuredContent?: unknown; isError?: boolean; _meta?: unknown }): McpAppToolResult {
  const whole: McpAppToolResult = {
    content: Array.isArray(result.content) ? result.content : [],
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError ? { isError: true } : {}),
    ...(isRecord(result._meta) ? { _meta: result._meta } : {}),
  };
  if (JSON.stringify(whole).length <= MAX_APP_RESULT_CHARS) return whole;
  const texts = whole.content.filter((part) => isRecord(part) && part.type === 'text').map((part) => String((part as { text?: unknown }).text ?? ''));
  const text = texts.join('\n').slice(0, MAX_APP_RESULT_CHARS - 200);
  return {
    content: [{ type: 'text', text: `${text}\n[cut: the result was too large to hand to its view whole]` }],
    ...(whole.isError ? { isError: true } : {}),
  };
}

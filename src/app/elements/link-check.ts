import { html, nothing } from 'lit';
/** Characters of data above this, in an address's path, subdomain, query and fragment together, are flagged. */
const LONG_QUERY_CHARS = 80;

/** A run this long of digits (spaces, dots and dashes between them allowed) reads as a number copied from somewhere: a card, a phone, an account. */
const NUMBER_RUN = /\d(?:[\s.\-_+]*\d){11,}/;

/** A token this long of letters and digits mixed, without a word break: encoded data rather than a slug. */
const ENCODED_TOKEN = /[A-Za-z0-9+/=_-]{32,}/;

/** Where an address carries data a model could have put there. */
type DataPart = 'path' | 'subdomain' | 'query';

/** What a link a model wrote would open, shown before it does. */
export interface LinkDestination {
  /** The whole address. */
  href: string;
  /** Where it goes: the host (without `www.`), or the e-mail address of a `mailto:` link. */
  destination: string;
  /** Whether it is an e-mail link. */
  mail: boolean;
  /** Characters of the address a composed link can fill: its path, subdomain labels, query and fragment. */
  dataChars: number;
  /** True when that data is long, or holds a long number or an encoded-looking token. */
  longData: boolean;
  /** The parts of the address that hold flagged data, for the warning to name. */
  dataParts: DataPart[];
  /** Those parts as words, for the warning: "its path and query". */
  dataWhere: string;
  /** Who wrote the link, where not the model: an MCP app's view, which asked to open it (`ui/open-link`). */
  from?: 'app';
}

/** A host's labels before its last two (`a.b.attacker.example` → `a.b`), `www` left out. */
function subdomainOf(host: string): string {
  const labels = host.replace(/^www\./, '').split('.');
  return labels.length > 2 ? labels.slice(0, -2).join('.') : '';
}

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
};

/** Whether one part of an address looks like it carries data: long, or a long number, or an encoded token. */
const flagged = (text: string, long: number): boolean => text.length > long || NUMBER_RUN.test(decoded(text)) || ENCODED_TOKEN.test(text);

/**
 * Describes a link from a model's answer before it is opened: its host (or the mail recipient) and
 * how much data its address carries — in the query and fragment, and as much in the path or the
 * subdomain (`https://attacker.example/4111-1111-1111-1111`, `https://4111111111111111.attacker.example/`).
 *
 * @param href - the link's resolved address.
 * @returns the description, or undefined when it is not an http(s) or mailto address.
 *
 * @remarks Security: a page the model read can make it write a link whose address holds parts of the
 * conversation; one click would send them. The page shows the full destination first, and flags an
 * address whose path, subdomain or query carries data (issue 28, N6; issue 41).
 */
export function describeLink(href: string): LinkDestination | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  if (url.protocol === 'mailto:') {
    const query = url.search + url.hash;
    const longData = flagged(query, LONG_QUERY_CHARS);
    const dataParts: DataPart[] = longData ? ['query'] : [];
    return { href: url.href, destination: decoded(url.pathname), mail: true, dataChars: query.length, longData, dataParts, dataWhere: inWords(dataParts) };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const parts: Record<DataPart, string> = {
    path: url.pathname.replace(/^\/+/, ''),
    subdomain: subdomainOf(url.hostname),
    query: `${url.search.slice(1)}${url.hash.slice(1)}`,
  };
  const dataChars = parts.path.length + parts.subdomain.length + parts.query.length;
  // A subdomain has no business being long: a few labels of a few letters name a service.
  const dataParts = (Object.keys(parts) as DataPart[]).filter((part) => flagged(parts[part], part === 'subdomain' ? 24 : LONG_QUERY_CHARS));
  const longData = dataParts.length > 0 || dataChars > LONG_QUERY_CHARS * 1.5;
  return { href: url.href, destination: url.hostname.replace(/^www\./, ''), mail: false, dataChars, longData, dataParts, dataWhere: inWords(dataParts) };
}

/** The parts an address carries data in, as words: "its path and query". */
function inWords(flaggedParts: readonly DataPart[]): string {
  const parts: readonly DataPart[] = flaggedParts.length ? flaggedParts : ['path', 'query'];
  return parts.length === 1 ? `its ${parts[0]}` : `its ${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * The link dialog's question: where the link goes, its whole address, a warning where it carries data, and
 * Cancel (the safe choice) beside Open.
 */
export function linkDialogContent(link: LinkDestination, actions: { cancel: () => void; open: () => void }) {
  return html`<h3 id="link-title">${link.mail ? 'Write an e-mail from a link in this answer?' : 'Open a link from this answer?'}</h3>
  <p>${link.from === 'app' ? 'An app shown in this answer asks to open this link.' : 'The model wrote this link.'} It ${link.mail ? 'addresses' : 'goes to'} <strong data-testid="link-destination">${link.destination}</strong>:</p>
  <p class="url"><code data-testid="link-href">${link.href}</code></p>
  ${
    link.longData
      ? html`<p class="warning" role="alert" data-testid="link-warning">
        Its address carries data in ${link.dataWhere} (${link.dataChars} characters). A web page the model read could
        have told it to put parts of this conversation there; opening the link would send them to ${link.destination}.
      </p>`
      : nothing
  }
  <div class="buttons">
    <button class="primary" data-testid="link-cancel" @click=${actions.cancel}>Cancel</button>
    <button data-testid="link-open" @click=${actions.open}>${link.mail ? 'Write the e-mail' : 'Open in a new tab'}</button>
  </div>`;
}

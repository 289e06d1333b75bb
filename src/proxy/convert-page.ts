import { decodeBody } from './decode-body.ts';
import { htmlToText, plainBodyToText, type HtmlToTextLimits } from './html-to-text.ts';

/** A fetched body to turn into text. */
export interface ConvertInput {
  /** The raw bytes. */
  body: Uint8Array;
  charset: string | undefined;
  mediaType: string;
  /** The page's final address: the base for its links. */
  url: string;
  limits?: HtmlToTextLimits;
}

/** A page's text, title and links. */
export interface ConvertedPage {
  title: string;
  text: string;
  links: string[];
}

/**
 * Decodes a fetched body and turns it into text: HTML through the converter (title, Markdown, links),
 * anything else as plain text. This is the work a hostile page controls, which is why the proxy runs
 * it in a worker thread ({@link createPageConverter}).
 *
 * @param input - the body and what the fetch learned of it.
 */
export function convertPage(input: ConvertInput): ConvertedPage {
  const decoded = decodeBody(input.body, input.charset, input.mediaType);
  if (input.mediaType === 'text/html') {
    const converted = htmlToText(decoded, input.url, input.limits);
    return { title: converted.title, text: converted.text, links: converted.links };
  }
  return { title: '', text: plainBodyToText(decoded, input.limits), links: [] };
}

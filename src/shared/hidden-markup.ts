/** Elements that may be hidden from a page's readers by their own attributes: what {@link hiddenFromReaders} looks at. */
export const MAYBE_HIDDEN_SELECTOR = '[hidden], [aria-hidden], [style]';

/** An inline style that hides its element: `display: none` or `visibility: hidden`, in any case, `!important` or not. */
const HIDING_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

/**
 * Whether an element's own markup hides it from the page's readers: `hidden`, `aria-hidden="true"`, or an inline
 * style that hides it (a style sheet's rules are not read). Text a person never sees is where a page hides
 * instructions for a model (issue 67): the page's and the proxy's HTML readers both leave it out.
 *
 * @param element - any DOM's element (the browser's, or linkedom's on the server).
 */
export function hiddenFromReaders(element: { hasAttribute(name: string): boolean; getAttribute(name: string): string | null }): boolean {
  return (
    element.hasAttribute('hidden') ||
    element.getAttribute('aria-hidden')?.trim().toLowerCase() === 'true' ||
    HIDING_STYLE.test(element.getAttribute('style') ?? '')
  );
}

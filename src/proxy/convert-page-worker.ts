/**
 * The page converter's worker thread (run by tinypool): one conversion per task, so a page that takes
 * too long is stopped by ending its thread, never by waiting on the process that serves requests.
 */
import type { MessagePort } from 'node:worker_threads';
import { convertPage, type ConvertInput, type ConvertedPage } from './convert-page.ts';

/** Converts one page, first telling the pool on `started` that the page's time budget starts now. */
export default function convert({ started, ...input }: ConvertInput & { started: MessagePort }): ConvertedPage {
  // Not closed here: closing at once could drop the message; the pool closes its end.
  started.postMessage('started');
  return convertPage(input);
}

/**
 * The page converter's worker thread (run by tinypool): one conversion per task, so a page that takes
 * too long is stopped by ending its thread, never by waiting on the process that serves requests.
 */
import { convertPage, type ConvertInput, type ConvertedPage } from './convert-page.ts';

export default function convert(input: ConvertInput | { ping: true }): ConvertedPage | 'pong' {
  return 'ping' in input ? 'pong' : convertPage(input);
}

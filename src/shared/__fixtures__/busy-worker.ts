/**
 * A worker thread for bounded-work.test.ts, serving the same protocol as the page's documents' worker: `spin`
 * never yields (a parser stuck on a hostile input), `echo` answers, `ask` calls the page, `fail` throws a named error.
 */
import { parentPort } from 'node:worker_threads';
import { serveBoundedWork, type WorkScope } from '../bounded-work.ts';

class AttachmentFileError extends Error {
  override readonly name = 'AttachmentFileError';
}

serveBoundedWork(parentPort as unknown as WorkScope, {
  spin: () => {
    for (;;) {
      // Busy on purpose: only ending the thread stops it.
    }
  },
  echo: (input: { text: string }) => ({ text: input.text, thread: 'worker' }),
  ask: async (input: { text: string }, host) => `${String(await host('shout', input.text))}!`,
  fail: () => {
    throw new AttachmentFileError('“x.bin” is not a text file.');
  },
});

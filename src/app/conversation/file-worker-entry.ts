/**
 * The files' worker: reads, indexes and imports files from outside away from the page's main thread, so a file
 * built to be slow costs its own worker, which the page ends at the deadline (see `file-worker.ts`).
 */
import { serveBoundedWork, type WorkScope } from '../../internal.ts';
import { fileWork } from './file-work.ts';

serveBoundedWork(self as unknown as WorkScope, fileWork);

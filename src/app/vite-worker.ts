/**
 * This repository's model worker, bundled by Vite from source (the app and the browser tests use
 * it; the published package leaves the worker file to its consumer, see `serve-model-worker.ts`).
 */
import { useModelWorker, type WorkerFactory } from '../internal.ts';

/** Starts `worker-entry.ts` as a module worker. */
const viteWorkerFactory: WorkerFactory = () => new Worker(new URL('./worker-entry.ts', import.meta.url), { type: 'module', name: 'nexus-model' });

useModelWorker(viteWorkerFactory);

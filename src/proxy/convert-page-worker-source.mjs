// The page converter's worker when the proxy runs from its TypeScript sources (npm start, the tests):
// worker threads do not inherit tsx's loader, so this loads the worker module through tsx's API.
// The published library runs the compiled convert-page-worker.js directly and never loads this file.
import { tsImport } from 'tsx/esm/api';

const { default: convert } = await tsImport('./convert-page-worker.ts', import.meta.url);

export default convert;

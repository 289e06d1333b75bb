import { ModelLoadError, TOKENIZER_FILES } from './model-source.ts';

/** What transformers.js reads from a model folder before any ONNX file. */
const REQUIRED_MODEL_FILES = ['config.json', ...TOKENIZER_FILES] as const;

/**
 * Checks, in Node, that a model folder holds the files transformers.js needs, so a folder
 * without them fails with the missing file's name rather than deep inside the tokenizer
 * ("Cannot read properties of undefined (reading 'tokenizer_class')").
 *
 * @param folder - the `{ path }` source's folder.
 * @param exists - checks a file (default: the file system; injected in tests).
 * @throws ModelLoadError naming the folder, the missing file and what to do.
 */
export async function checkModelFolder(folder: string, exists?: (file: string) => Promise<boolean>): Promise<void> {
  const check = exists ?? (await fileExists());
  const base = folder.replace(/\/+$/, '');
  if (!(await check(base)))
    throw new ModelLoadError(`The model folder ${base} does not exist. Give the path of a folder that holds config.json, the tokenizer files and onnx/.`);
  for (const file of REQUIRED_MODEL_FILES) {
    if (await check(`${base}/${file}`)) continue;
    const fixtureHint = base.includes('tests/fixtures/models')
      ? ' For the fixture models, run npm run fixtures:prepare, which copies the tokenizer files (npm start does it when it serves them).'
      : '';
    throw new ModelLoadError(
      `The model folder ${base} has no ${file}: a transformers.js model folder needs ${REQUIRED_MODEL_FILES.join(', ')} next to onnx/.${fixtureHint}`,
    );
  }
}

/** `fs.access` as a yes/no, loaded only where a folder is checked (Node), never in a browser bundle. */
async function fileExists(): Promise<(file: string) => Promise<boolean>> {
  const specifier = 'node:fs/promises';
  const fs = (await import(/* @vite-ignore */ specifier)) as typeof import('node:fs/promises');
  return async (file) => {
    try {
      await fs.access(file);
      return true;
    } catch {
      return false;
    }
  };
}

import { describe, expect, it } from 'vitest';
import { ModelFilesError, ModelLoadError, ModelNotFoundError, NexusError, ToolsFileError, UnknownToolError, ZipReadError } from '../index.ts';
import { InvalidOptionError, ModelWorkerError, serializeError } from '../shared/errors.ts';
import { deserializeError } from './protocol.ts';

/** What an error is after a trip through postMessage: serialized, cloned, rebuilt. */
const acrossTheWorker = (error: unknown): Error => deserializeError(structuredClone(serializeError(error)));

describe('errors keep their class across the worker (issue 24, item 5)', () => {
  it.each([
    ['ModelNotFoundError', new ModelNotFoundError('There is no model x/y on the hub.'), [ModelNotFoundError, ModelLoadError]],
    ['ModelFilesError', new ModelFilesError('The folder has no onnx/ files.'), [ModelFilesError, ModelLoadError]],
    ['UnknownToolError', new UnknownToolError('toolChoice names x'), [UnknownToolError]],
    ['ModelWorkerError', new ModelWorkerError('the worker died'), [ModelWorkerError]],
  ] as const)('%s: instanceof its class and its parents, NexusError.isInstance, message and name', (name, error, classes) => {
    const revived = acrossTheWorker(error);
    for (const errorClass of classes) expect(revived).toBeInstanceOf(errorClass);
    expect(revived).toBeInstanceOf(NexusError);
    expect(revived).toBeInstanceOf(Error);
    expect(NexusError.isInstance(revived)).toBe(true);
    expect(revived).toMatchObject({ name, message: error.message });
  });

  it('keeps the fields that are plain data', () => {
    const tools = acrossTheWorker(new ToolsFileError('/tools.js', 'syntax', 'SyntaxError: x.', { line: 3 }));
    expect(tools).toMatchObject({ source: '/tools.js', failure: 'syntax', line: 3 });
    expect(acrossTheWorker(new ZipReadError('too-large', 'm.zip inflates to more than 8 MiB'))).toMatchObject({ failure: 'too-large' });
    const option = acrossTheWorker(new InvalidOptionError('strategy', 'primed', ['auto', 'inline', 'stepwise']));
    expect(option).toBeInstanceOf(InvalidOptionError);
    expect(option).toMatchObject({ option: 'strategy', valid: ['auto', 'inline', 'stepwise'] });
  });

  it('an unknown name stays a plain Error with that name; an abort is an AbortError', () => {
    const other = acrossTheWorker(Object.assign(new Error('boom'), { name: 'RangeErrorOfSomeLibrary' }));
    expect(other).toMatchObject({ name: 'RangeErrorOfSomeLibrary', message: 'boom' });
    expect(NexusError.isInstance(other)).toBe(false);
    expect(acrossTheWorker(new DOMException('stopped', 'AbortError'))).toMatchObject({ name: 'AbortError' });
  });
});

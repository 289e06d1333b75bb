import { checkOption } from '../shared/errors.ts';
import { DTYPE_FILES } from './device-ladder.ts';
import { MODEL_FAMILIES } from './families.ts';

/** The devices a model can be loaded on. */
export const DEVICES = ['webgpu', 'wasm', 'cpu'] as const;

/** The quantizations transformers.js knows, by name. */
export const DTYPES: readonly string[] = Object.keys(DTYPE_FILES);

/**
 * Refuses a load option with a value it does not take (a typo such as `dtype: 'q4_f16'` would
 * otherwise fail deep in the runtime, or be ignored), naming the valid values.
 * @param options - the options of a load.
 * @throws InvalidOptionError naming the option, the value and the valid ones.
 */
export function checkLoadOptions(options: { dtype?: unknown; device?: unknown; family?: unknown }): void {
  if (options.dtype !== undefined) checkOption('dtype', options.dtype, DTYPES);
  if (options.device !== undefined) checkOption('device', options.device, DEVICES);
  if (options.family !== undefined) checkOption('family', options.family, Object.keys(MODEL_FAMILIES));
}

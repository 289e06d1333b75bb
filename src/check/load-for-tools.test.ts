import { describeSource, SOURCE_FAILURES } from '../engine/model-source.ts';
import { describe, expect, it, vi } from 'vitest';
import type { LoadCandidate } from '../engine/device-ladder.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus/index.ts';
import { loadForTools, NoToolCallingDtypeError, type ToolAttempt } from './load-for-tools.ts';
import type { ToolCallCheck } from './self-check.ts';
import { memoryVerdictStore } from './verdict-store.ts';

const source = { url: 'http://127.0.0.1:1/models/m' };
/** How the facade names a source and tells a source-wide failure (the engine's own rules, handed in). */
const NAMING = { describe: describeSource, isSourceFailure: (error: unknown) => error instanceof Error && SOURCE_FAILURES.has(error.name) };
const gpu = { runtime: 'browser', webgpu: true, shaderF16: true } as const;

/** A chat whose self-check is scripted to pass or fail, and which records its disposal. */
function fakeChat(candidate: LoadCandidate, outcome: Partial<ToolCallCheck>, disposed: string[]): NexusChat {
  const chat = NexusChat.withEngine(new ScriptedEngine([], { model: 'm', device: candidate.device, dtype: candidate.dtype }));
  const check: ToolCallCheck = {
    ok: false,
    called: false,
    grounded: false,
    needed_forcing: false,
    model: 'm',
    device: candidate.device,
    dtype: candidate.dtype,
    answer: '',
    detail: `m (${candidate.dtype}) does not call tools.`,
    generations: 2,
    promptTokens: 100,
    newTokens: 10,
    ms: 1,
    ...outcome,
  };
  vi.spyOn(chat, 'selfCheck').mockResolvedValue(check);
  vi.spyOn(chat, 'dispose').mockImplementation(async () => {
    disposed.push(candidate.dtype);
  });
  return chat;
}

describe('loadForTools', () => {
  it('keeps the first dtype that passes, disposing every rejected one first, and remembers the verdict', async () => {
    const disposed: string[] = [];
    const loads: string[] = [];
    const attempts: ToolAttempt[] = [];
    const verdicts = memoryVerdictStore();
    const load = async (_: unknown, c: LoadCandidate) => {
      loads.push(`${c.dtype}@${c.device}`);
      if (c.dtype === 'q4f16') throw new Error('model_q4f16.onnx is corrupt');
      return fakeChat(
        c,
        c.dtype === 'q4' && c.device === 'wasm'
          ? { ok: true, called: true, grounded: true, detail: 'm (q4) calls tools.' }
          : { called: true, detail: 'm (q4) calls tools but reports something else.' },
        disposed,
      );
    };
    const chat = await loadForTools(source, { onAttempt: (a) => attempts.push(a) }, { ...NAMING, caps: gpu, available: ['q4f16', 'q4'], load, verdicts });

    expect(loads).toEqual(['q4f16@webgpu', 'q4@webgpu', 'q4@wasm']);
    expect(disposed).toEqual(['q4']);
    expect(attempts.map((a) => [a.dtype, a.device, a.ok])).toEqual([
      ['q4f16', 'webgpu', false],
      ['q4', 'webgpu', false],
      ['q4', 'wasm', true],
    ]);
    expect(attempts[0]?.detail).toBe('could not be loaded: model_q4f16.onnx is corrupt');
    expect(chat.info.dtype).toBe('q4');
    expect([...verdicts.entries.values()]).toMatchObject([{ dtype: 'q4', device: 'wasm', ok: true }]);

    // The next visit loads the proven dtype straight away.
    loads.length = 0;
    const again = await loadForTools(source, { onAttempt: (a) => attempts.push(a) }, { ...NAMING, caps: gpu, available: ['q4f16', 'q4'], load, verdicts });
    expect(loads).toEqual(['q4@wasm']);
    expect(attempts.at(-1)).toMatchObject({ remembered: true, ok: true });
    expect(again.selfCheck).not.toHaveBeenCalled();
  });

  it("with pick 'fastest' checks every candidate and keeps the clearly faster one that passes, remembering its speed", async () => {
    const disposed: string[] = [];
    const verdicts = memoryVerdictStore();
    const wasm = { runtime: 'browser', webgpu: false, shaderF16: false } as const;
    const speeds: Record<string, number> = { q4: 0.55, q8: 1.37 };
    const load = async (_: unknown, c: LoadCandidate) =>
      fakeChat(c, { ok: true, called: true, grounded: true, detail: `m (${c.dtype}) calls tools.`, tokensPerSecond: speeds[c.dtype] ?? 0 }, disposed);
    const chat = await loadForTools(source, { dtypes: ['q4', 'q8'], pick: 'fastest' }, { ...NAMING, caps: wasm, available: ['q4', 'q8'], load, verdicts });
    expect(chat.info.dtype).toBe('q8');
    expect(disposed).toEqual(['q4']);
    expect([...verdicts.entries.values()]).toMatchObject([{ dtype: 'q8', ok: true, tokensPerSecond: 1.37 }]);
    // 'first' (the default) stops at the first that passes.
    const first = await loadForTools(source, { dtypes: ['q4', 'q8'] }, { ...NAMING, caps: wasm, available: ['q4', 'q8'], load, verdicts: null });
    expect(first.info.dtype).toBe('q4');
  });

  it('with allowForcing false rejects a model that calls only when primed', async () => {
    const disposed: string[] = [];
    const load = async (_: unknown, c: LoadCandidate) =>
      fakeChat(c, { ok: true, called: true, grounded: true, needed_forcing: true, detail: 'm needs priming.' }, disposed);
    await expect(
      loadForTools(source, { allowForcing: false, dtypes: ['q4', 'q8'] }, { ...NAMING, caps: gpu, available: undefined, load, verdicts: null }),
    ).rejects.toThrow(/Rejected: calls only when primed, and allowForcing is false/);
    expect(disposed).toEqual(['q4', 'q8']);
  });

  it('throws naming every dtype and why, with the hint about small models', async () => {
    const load = async (_: unknown, c: LoadCandidate) => fakeChat(c, {}, []);
    const error = await loadForTools(
      source,
      { dtypes: ['q4', 'q8'] },
      { ...NAMING, caps: { runtime: 'node', webgpu: false, shaderF16: false }, available: ['q4', 'q8'], load, verdicts: null },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoToolCallingDtypeError);
    expect((error as Error).message).toBe(
      'No dtype of http://127.0.0.1:1/models/m could call a tool on cpu. Tried:\n  q4: m (q4) does not call tools.\n  q8: m (q8) does not call tools.\n' +
        'Models below ~0.5B generally cannot pick a tool name from a list; try onnx-community/Qwen3-0.6B-ONNX.',
    );
  });

  it('keeps the whole cause of a load that failed, every line, and gives no size advice when nothing loaded (issue 42)', async () => {
    const load = async (_: unknown, c: LoadCandidate): Promise<never> => {
      throw new Error(`Could not load ${c.dtype}. Tried:\n  /assets/ort-wasm-simd-threaded.wasm: 404 Not Found\n  wasmPaths: not set`);
    };
    const error = await loadForTools(
      source,
      { dtypes: ['q4', 'q8'] },
      { ...NAMING, caps: { runtime: 'node', webgpu: false, shaderF16: false }, available: ['q4', 'q8'], load, verdicts: null },
    ).catch((e: unknown) => e);
    const message = (error as Error).message;
    expect(message).toContain(
      '  q4: could not be loaded: Could not load q4. Tried:\n      /assets/ort-wasm-simd-threaded.wasm: 404 Not Found\n      wasmPaths: not set',
    );
    expect(message).toContain('None of them loaded, so whether the model calls tools is not known');
    expect(message).not.toContain('below ~0.5B');
  });

  it('with fullPrecision, tries the unquantized files the source serves after the quantized ones (issue 30, P2.6)', async () => {
    const wasm = { runtime: 'browser' as const, webgpu: false, shaderF16: false };
    const loaded: string[] = [];
    const load = async (_: unknown, c: LoadCandidate) => {
      loaded.push(`${c.device} ${c.dtype}`);
      return fakeChat(c, {}, []);
    };
    await loadForTools(source, { fullPrecision: true }, { ...NAMING, caps: wasm, available: ['q4', 'q8', 'fp32', 'fp16'], load, verdicts: null }).catch(
      () => undefined,
    );
    expect(loaded.slice(-1)).toEqual(['wasm fp32']);
    expect(loaded).toHaveLength(3);
    // Without it, or where the source serves no fp32, nothing more is downloaded.
    loaded.length = 0;
    await loadForTools(source, {}, { ...NAMING, caps: wasm, available: ['q4', 'q8', 'fp32'], load, verdicts: null }).catch(() => undefined);
    expect(loaded).toHaveLength(2);
    loaded.length = 0;
    await loadForTools(source, { fullPrecision: true }, { ...NAMING, caps: wasm, available: ['q4', 'q8'], load, verdicts: null }).catch(() => undefined);
    expect(loaded).toHaveLength(2);
    // A GPU with shader-f16 gets fp16 there, then fp32 on the GPU and on WASM.
    loaded.length = 0;
    const f16 = { runtime: 'browser' as const, webgpu: true, shaderF16: true };
    await loadForTools(source, { fullPrecision: true }, { ...NAMING, caps: f16, available: ['q4', 'fp16', 'fp32'], load, verdicts: null }).catch(
      () => undefined,
    );
    expect(loaded.filter((l) => /fp/.test(l))).toEqual(['webgpu fp16', 'webgpu fp32', 'wasm fp32']);
  });

  it('verifies an explicit dtype, without retrying past it', async () => {
    const loads: string[] = [];
    const load = async (_: unknown, c: LoadCandidate) => {
      loads.push(c.dtype);
      return fakeChat(c, {}, []);
    };
    await expect(loadForTools(source, { dtype: 'q8' }, { ...NAMING, caps: gpu, available: ['q4', 'q8'], load, verdicts: null })).rejects.toBeInstanceOf(
      NoToolCallingDtypeError,
    );
    expect(loads).toEqual(['q8']);
  });
});

/**
 * Where the engine's own decode step goes in the browser: a CPU profile of the model worker
 * (Chrome DevTools Protocol) while the app's engine decodes at real size on WASM, each sample
 * attributed through the bundle's source map to ONNX Runtime's WASM code, ONNX Runtime Web's
 * JavaScript, transformers.js, this project's code, or the garbage collector.
 *
 * The worker is the thread that calls ONNX Runtime; the pool's other threads are workers of their
 * own and are not in this profile, so its WASM share is the calling thread's part of the kernels.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SourceMapConsumer, type RawSourceMap } from 'source-map-js';
import { launchChromium } from '../e2e/chromium.ts';
import { openHarnessPage, serveBenchHarness } from './bench-harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where a sample's time went. */
export type ProfileBucket = 'ONNX Runtime WASM' | 'ONNX Runtime Web JS' | 'transformers.js' | 'this project' | 'garbage collector' | 'idle' | 'other';

/** A CPU profile as `Profiler.stop` returns it (the fields used here). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The engine's decode step, profiled. */
export interface EngineDecodeProfile {
  threads: number;
  passes: number;
  msPerPass: number;
  /** Milliseconds per forward pass, by bucket. */
  buckets: Record<ProfileBucket, number>;
  /** The heaviest functions of ONNX Runtime Web's JavaScript, by original name, ms per pass. */
  ortWebFunctions: { name: string; ms: number }[];
}

/** Which bucket a source path from the source map belongs to. */
export function bucketOfSource(source: string | null | undefined): ProfileBucket {
  if (!source) return 'other';
  if (source.includes('onnxruntime-web') || source.includes('onnxruntime-common')) return 'ONNX Runtime Web JS';
  if (source.includes('@huggingface/transformers')) return 'transformers.js';
  if (/(^|\/)src\//.test(source) && !source.includes('node_modules')) return 'this project';
  return 'other';
}

/**
 * Attributes a profile's self time: `resolve` maps a JS frame (url, 0-based line and column) to its
 * original source and name, or undefined when the frame is not the bundle's.
 */
export function attributeProfile(
  profile: CpuProfile,
  resolve: (url: string, line: number, column: number) => { source: string | null; name: string | null; innerSource?: string | null } | undefined,
): { buckets: Record<ProfileBucket, number>; ortWebFunctions: Map<string, number> } {
  const buckets: Record<ProfileBucket, number> = {
    'ONNX Runtime WASM': 0,
    'ONNX Runtime Web JS': 0,
    'transformers.js': 0,
    'this project': 0,
    'garbage collector': 0,
    idle: 0,
    other: 0,
  };
  const ortWebFunctions = new Map<string, number>();
  const selfUs = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) continue;
    let bucket: ProfileBucket = 'other';
    if (frame.url.startsWith('wasm://') || frame.functionName.startsWith('wasm-function[')) bucket = 'ONNX Runtime WASM';
    else if (frame.functionName === '(garbage collector)') bucket = 'garbage collector';
    else if (frame.functionName === '(idle)') bucket = 'idle';
    else if (frame.url) {
      const original = resolve(frame.url, frame.lineNumber, frame.columnNumber);
      bucket = bucketOfSource(original?.source);
      if (bucket === 'ONNX Runtime Web JS') {
        // ONNX Runtime Web ships minified: its own map gives the source file, not always a name.
        const file = original?.innerSource ? original.innerSource.split('/').slice(-2).join('/') : (original?.source ?? '').split('/').pop();
        const name = `${file} ${original?.name ?? (frame.functionName || '(anonymous)')}`;
        ortWebFunctions.set(name, (ortWebFunctions.get(name) ?? 0) + us);
      }
    }
    buckets[bucket] += us;
  }
  return { buckets, ortWebFunctions };
}

/** Sends CDP commands to a worker through the browser session (Playwright has no worker sessions). */
async function workerProfiler(browser: import('playwright-core').Browser, urlPattern: RegExp) {
  const cdp = await browser.newBrowserCDPSession();
  const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string; url: string }[] };
  const target = targetInfos.find((t) => t.type === 'worker' && urlPattern.test(t.url));
  if (!target)
    throw new Error(
      `No worker matching ${urlPattern} to profile; workers: ${
        targetInfos
          .filter((t) => t.type === 'worker')
          .map((t) => t.url)
          .join(', ') || 'none'
      }`,
    );
  const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false })) as { sessionId: string };
  let nextId = 0;
  const pending = new Map<number, (result: unknown) => void>();
  cdp.on('Target.receivedMessageFromTarget', (event: { message: string }) => {
    const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: unknown };
    if (message.id === undefined) return;
    pending.get(message.id)?.(message.result ?? message.error);
    pending.delete(message.id);
  });
  const send = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve as (result: unknown) => void);
      void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
    });
  return { send, detach: () => cdp.detach() };
}

type Resolver = Parameters<typeof attributeProfile>[1];

/**
 * Maps a frame of the bundle in `outDir` to its original source and name through the bundle's
 * source maps; a prebuilt dependency (ONNX Runtime Web ships minified) maps once more through its
 * own map, to its sources' files.
 */
function bundleResolver(outDir: string): Resolver {
  const maps = new Map<string, SourceMapConsumer>();
  for (const file of readdirSync(join(outDir, 'assets'))) {
    if (file.endsWith('.js.map'))
      maps.set(file.slice(0, -'.map'.length), new SourceMapConsumer(JSON.parse(readFileSync(join(outDir, 'assets', file), 'utf8')) as RawSourceMap));
  }
  const dependencyMaps = new Map<string, SourceMapConsumer | null>();
  const dependencyMap = (source: string) => {
    const at = source.indexOf('node_modules/');
    if (at < 0) return null;
    const file = join(ROOT, source.slice(at));
    if (!dependencyMaps.has(file)) {
      let map: SourceMapConsumer | null = null;
      try {
        map = new SourceMapConsumer(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as RawSourceMap);
      } catch {
        // No map shipped: the bundle's position is as far as it goes.
      }
      dependencyMaps.set(file, map);
    }
    return dependencyMaps.get(file) ?? null;
  };
  return (url, line, column) => {
    const map = maps.get(url.split('/').pop() ?? '');
    if (!map) return undefined;
    const original = map.originalPositionFor({ line: line + 1, column });
    const inner =
      original.source && original.line ? dependencyMap(original.source)?.originalPositionFor({ line: original.line, column: original.column }) : undefined;
    return { source: original.source, name: inner?.name ?? original.name ?? null, innerSource: inner?.source ?? null };
  };
}

type BenchWindow = {
  nexus: { NexusChat: { load(s: { url: string }, o: object): Promise<unknown> } };
  benchChat?: { chat(p: string, o: object): Promise<{ metrics: { ms: number; newTokens: number } }>; dispose(): Promise<void> };
};

/**
 * Profiles `decodeTokens` decode steps of the engine answering `prompt`, after a warm-up, once for
 * each of `threadCounts` WASM threads (one build and one browser for all of them).
 */
export async function profileEngineDecode(
  modelFolder: string,
  threadCounts: readonly number[],
  prompt: string,
  decodeTokens = 16,
): Promise<EngineDecodeProfile[]> {
  const harness = await serveBenchHarness(dirname(modelFolder), { sourcemap: true });
  const resolve = bundleResolver(harness.outDir);
  const url = `${harness.modelsUrl}${basename(modelFolder)}`;
  const browser = await launchChromium({ webgpu: false });
  const profiles: EngineDecodeProfile[] = [];
  try {
    for (const threads of threadCounts) {
      // A page of its own each time, so the one model worker in the browser is this load's.
      const page = await openHarnessPage(browser, harness);
      await page.evaluate(
        async ({ url, threads, prompt }) => {
          const w = window as unknown as BenchWindow;
          w.benchChat = (await w.nexus.NexusChat.load({ url }, { dtype: 'q8', device: 'wasm', numThreads: threads })) as BenchWindow['benchChat'];
          await w.benchChat!.chat(prompt, { maxNewTokens: 1, toolChoice: 'none', isolated: true, repetitionPenalty: 1 });
          await w.benchChat!.chat(prompt, { maxNewTokens: 9, toolChoice: 'none', isolated: true, repetitionPenalty: 1 });
        },
        { url, threads, prompt },
      );
      const profiler = await workerProfiler(browser, /worker-entry/);
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.send('Profiler.start');
      const metrics = await page.evaluate(
        async ({ prompt, decodeTokens }) =>
          (
            await (window as unknown as BenchWindow).benchChat!.chat(prompt, {
              maxNewTokens: decodeTokens + 1,
              toolChoice: 'none',
              isolated: true,
              repetitionPenalty: 1,
            })
          ).metrics,
        { prompt, decodeTokens },
      );
      const { profile } = await profiler.send<{ profile: CpuProfile }>('Profiler.stop');
      await profiler.detach();
      await page.evaluate(() => (window as unknown as BenchWindow).benchChat!.dispose());
      await page.close();
      const { buckets, ortWebFunctions } = attributeProfile(profile, resolve);
      const passes = metrics.newTokens;
      const perPass = (us: number) => us / 1000 / passes;
      profiles.push({
        threads,
        passes,
        msPerPass: metrics.ms / passes,
        buckets: Object.fromEntries(Object.entries(buckets).map(([k, us]) => [k, perPass(us)])) as Record<ProfileBucket, number>,
        ortWebFunctions: [...ortWebFunctions.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([name, us]) => ({ name, ms: perPass(us) })),
      });
    }
  } finally {
    await browser.close();
    await harness.close();
  }
  return profiles;
}

/** Prints the profile as the real-size bench does. */
export function printEngineDecodeProfile(profiled: EngineDecodeProfile): void {
  const fmt = (n: number) => n.toFixed(1);
  console.log(
    `\n== The engine's decode step in the model worker (q8, WASM, ${profiled.threads} thread${profiled.threads === 1 ? '' : 's'}, ${profiled.passes} passes after the real-size prompt; CPU profile of the worker)`,
  );
  console.log(
    `${fmt(profiled.msPerPass)} ms a pass: ` +
      Object.entries(profiled.buckets)
        .filter(([, ms]) => ms >= 0.05)
        .sort((a, b) => b[1] - a[1])
        .map(([bucket, ms]) => `${bucket} ${fmt(ms)} ms`)
        .join(', '),
  );
  if (profiled.ortWebFunctions.length)
    console.log(`  ONNX Runtime Web JS by function: ${profiled.ortWebFunctions.map((f) => `${f.name} ${fmt(f.ms)} ms`).join(', ')}`);
}

/**
 * `npm run bench`: every benchmark, each printed as a ratio against a baseline measured in the
 * same run (absolute numbers depend on the machine; ratios travel).
 */
import { existsSync } from 'node:fs';
import { benchTranscript } from './engine-bench.ts';
import { benchEngineCosts } from './engine-costs.ts';
import { benchFamilies } from './family-bench.ts';
import { benchLoopScenarios } from './loop-bench.ts';
import { benchParse, benchScaling } from './parse-bench.ts';

const fmt = (n: number, digits = 2) => n.toFixed(digits);

/**
 * Benchmarks that are a run of their own (minutes, a real-size model or a browser), by their flag;
 * without one of these flags the quick benchmarks below run.
 */
const OWN_RUNS: Record<string, () => Promise<void>> = {
  // Only the WASM decode anatomy at real size, ONNX Runtime alone and inside the engine (part of --real-size; about two minutes).
  '--anatomy': async () => (await import('./real-size.ts')).runDecodeAnatomy((await import('node:os')).availableParallelism()),
  // Decode tokens/s at 16 to 4,000 tokens of context, Node and Chromium WASM, q8 and q4 (src: tests/bench/decode-curve.ts).
  '--decode-curve': async () => (await import('./decode-curve.ts')).runDecodeCurveBench(),
  // The page's visit figures in Chromium, median of five (src: tests/bench/page-visits.ts; a few minutes).
  '--page': async () => (await import('./page-visits.ts')).runPageVisitsBench(),
  // The proxy as a team runs it: instances behind a balancer, memory against Redis (src: tests/bench/proxy-load.ts).
  '--proxy-load': async () => (await import('./proxy-load.ts')).runProxyLoadBench(),
  // Its own run: it builds a 1.1 GB model once and takes minutes (src: tests/bench/real-size.ts).
  '--real-size': async () => (await import('./real-size.ts')).runRealSizeBench(),
};

const ownRun = Object.keys(OWN_RUNS).find((flag) => process.argv.includes(flag));
if (ownRun) {
  await OWN_RUNS[ownRun]?.();
  process.exit(0);
}

console.log('== Tool-call parser (1 MB mixed input; baseline: JSON.parse of the same bytes)');
const parse = benchParse();
console.log(`parseToolCalls ${fmt(parse.parseMBps, 1)} MB/s, JSON.parse ${fmt(parse.jsonParseMBps, 1)} MB/s, ratio ${fmt(parse.ratio, 3)}`);
console.log(
  `streaming filter ${fmt(parse.streamMBps, 1)} MB/s; held back at most ${parse.maxMarkerHeld} characters while a marker was undecided, ${parse.maxHeldBack} in all (bare JSON is held until it closes)`,
);

console.log('\n== Scaling (time for 8x the input / time for 1x; linear is about 8, quadratic about 64)');
for (const row of benchScaling())
  console.log(`${row.name.padEnd(36)} parse ${fmt(row.parseRatio, 1).padStart(5)}  stream ${fmt(row.streamRatio, 1).padStart(5)}`);

console.log('\n== Loop scenarios on the scripted Qwen3 (cached = prompt tokens a real engine takes from its KV cache)');
for (const s of await benchLoopScenarios()) {
  const share = s.roundPrefixShare.length ? s.roundPrefixShare.map((x) => fmt(x, 3)).join(', ') : 'one round';
  console.log(
    `${s.scenario.padEnd(36)} generations ${String(s.generations).padStart(2)}  prompt tokens ${String(s.promptTokens).padStart(5)}  cached ${fmt(s.cachedTokens / s.promptTokens, 3)}  round prompt repeated: ${share}`,
  );
}

console.log('\n== Engine costs per call at 1,000 tokens of context (baseline: the implementation each replaced, same run)');
for (const figure of await benchEngineCosts()) {
  console.log(
    `${figure.name.padEnd(48)} before ${fmt(figure.baselineMs, 1).padStart(7)} ms  now ${fmt(figure.ms, 1).padStart(7)} ms  ratio ${fmt(figure.ms / figure.baselineMs, 3)}`,
  );
}

console.log('\n== Token transcript on the tiny fixture (4-round tool conversation; baseline: full re-prefill every round)');
const transcriptRuns = await benchTranscript();
for (const [label, { transcript, naive }] of Object.entries(transcriptRuns)) {
  console.log(
    `${label.padEnd(4)} prefilled tokens: transcript ${transcript.prefilledTokens} of ${transcript.promptTokens}, naive ${naive.prefilledTokens} of ${naive.promptTokens}, ratio ${fmt(transcript.prefilledTokens / naive.prefilledTokens, 3)}`,
  );
  console.log(`${label.padEnd(4)} wall time: transcript ${fmt(transcript.ms, 0)} ms, naive ${fmt(naive.ms, 0)} ms, ratio ${fmt(transcript.ms / naive.ms, 3)}`);
}

console.log('\n== Model families (2-round tool answer per family fixture, real engine; cached = served from the KV cache)');
for (const f of await benchFamilies()) {
  const yes = (b: boolean) => (b ? 'yes' : 'NO ');
  console.log(
    `${f.family.padEnd(36)} renders ${yes(f.renders)}  primes ${yes(f.primes)}  parses ${yes(f.parses)}  calls ${f.calls}  generations ${f.generations}  prompt tokens ${String(f.promptTokens).padStart(5)}  cached ${fmt(f.cachedTokens / f.promptTokens, 3)}`,
  );
}

console.log('\n== Tool index (60 labelled-message fixture; semantic = the fixture word-vector encoder, not a real model: npm run recall:tools)');
{
  const { FIXTURE_EMBEDDER, benchToolIndex, measureRecall, printRecall } = await import('./tool-recall.ts');
  const { loadEmbedder } = await import('../../src/engine/load-embedder.ts');
  const embedder = await loadEmbedder(FIXTURE_EMBEDDER, { device: 'cpu' });
  printRecall(await measureRecall(embedder.embed), 'fixture encoder');
  const rows = await benchToolIndex(embedder.embed);
  for (const row of rows) {
    console.log(
      `${String(row.tools).padStart(4)} tools: index ${fmt(row.buildMs, 1)} ms, with vectors ${fmt(row.buildWithVectorsMs, 0)} ms; query lexical ${fmt(row.lexicalQueryMs, 2)} ms, combined ${fmt(row.combinedQueryMs, 2)} ms`,
    );
  }
  const [small, large] = rows;
  if (small && large)
    console.log(
      `600 / 60 tools: build ${fmt(large.buildMs / small.buildMs, 1)}×, lexical query ${fmt(large.lexicalQueryMs / small.lexicalQueryMs, 1)}×, combined query ${fmt(large.combinedQueryMs / small.combinedQueryMs, 1)}×`,
    );
  await embedder.dispose();
}

console.log('\n== A first visit to / before a model is chosen (issue 54; baseline: no compression and the precache of before)');
{
  const { benchFirstVisit, printFirstVisit } = await import('./first-visit.ts');
  printFirstVisit(await benchFirstVisit());
}

const proxyBench = new URL('../proxy/bench-proxy.ts', import.meta.url);
if (existsSync(proxyBench)) {
  console.log('\n== Companion proxy');
  const { benchProxy } = (await import(proxyBench.href)) as { benchProxy: () => Promise<Record<string, number>> };
  for (const [name, value] of Object.entries(await benchProxy())) console.log(`${name}: ${fmt(value, 3)}`);
}

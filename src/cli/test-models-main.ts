/**
 * `npm run test:models -- --models <hub id or folder>[,…] --dtypes q4,q8,fp16 [--device cpu] [--prompts file.json] [--json]`,
 * or, installed: `npx browser-llm-nexus test-models --models …` (the package's bin).
 *
 * For each model and dtype: load it (Node, onnxruntime-node, CPU), ask three questions whose
 * answers only a tool call can give, score them, free it. Prints a table and a VERDICT per model
 * and exits non-zero when a listed model has no usable dtype — a CI gate before pinning a model.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { askModelQuestions, formatVerdict, speedOf, verdictFor, type DtypeReport, type ModelVerdict } from '../check/model-report.ts';
import { DTYPE_FILES, dtypesInFiles } from '../engine/device-ladder.ts';
import { MODEL_FAMILIES } from '../engine/families.ts';
import { DEVICES, DTYPES } from '../engine/load-options.ts';
import { checkOption } from '../shared/errors.ts';
import type { FamilyId } from '../engine/model-family.ts';
import { describeSource, type ModelSource } from '../engine/model-source.ts';
import { freshSeed, seededRandom } from '../check/seeded-random.ts';
import { NexusChat } from '../nexus/index.ts';

const USAGE =
  'Usage: browser-llm-nexus test-models --models <hub id or local folder>[,…] [options]   (in this repository: npm run test:models -- --models …)\n' +
  'Loads each model per dtype in Node (CPU), asks three questions only a tool call can answer, prints a table and a VERDICT,\n' +
  'and exits 0 when every model has a dtype that got all three right (1 otherwise, 2 for bad arguments).\n' +
  'Options: [--dtypes q4,q8] [--device cpu] [--prompts file.json] [--family id] [--seed n] [--json]\n' +
  '  --dtypes: the quantizations to judge (default q4,q8; for a local folder, the ones it has of those, or every one it has).\n' +
  "  --seed: draw the questions' values from this seed (every run prints its seed; give it back to replay that run exactly).\n" +
  '  --prompts: a JSON file with "systemPrompt" and/or "answerPrompt", to check a model with the prompts your app uses.\n' +
  `  --family: speak to every model through this profile instead of the detected one (${Object.keys(MODEL_FAMILIES).join(', ')}).`;

/** The prompts to ask with (defaults when not given). */
interface Prompts {
  systemPrompt?: string;
  answerPrompt?: string;
}

function readPrompts(file: string | undefined): Prompts {
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`--prompts ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { systemPrompt, answerPrompt } = (parsed ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries({ systemPrompt, answerPrompt })) {
    if (value !== undefined && typeof value !== 'string') throw new Error(`--prompts ${file}: "${key}" must be a string.`);
  }
  return { ...(typeof systemPrompt === 'string' ? { systemPrompt } : {}), ...(typeof answerPrompt === 'string' ? { answerPrompt } : {}) };
}

function sourceOf(model: string): ModelSource {
  const path = resolve(model);
  return existsSync(path) || /^[./]/.test(model) ? { path } : { hub: model };
}

/** The quantizations judged by default, when the folder has them. */
const DEFAULT_DTYPES = ['q4', 'q8'];

/**
 * The dtypes to judge for one model: those asked for; else, for a local folder, the default ones it
 * has, or every one it has when it has none of them (a folder with only `onnx/model.onnx` is judged
 * at fp32); else the defaults.
 */
function dtypesToJudge(source: ModelSource, asked: readonly string[] | undefined): string[] {
  if (asked?.length) return [...asked];
  if (!('path' in source)) return [...DEFAULT_DTYPES];
  const folder = join(source.path, 'onnx');
  const present = existsSync(folder) ? dtypesInFiles(readdirSync(folder)) : [];
  const defaults = DEFAULT_DTYPES.filter((d) => present.includes(d));
  return defaults.length ? defaults : present.length ? present : [...DEFAULT_DTYPES];
}

/** The cause in one line, with the hub's unreachability said plainly. */
function causeOf(error: unknown, source: ModelSource, dtype?: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if ('hub' in source && /fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|network/i.test(message)) {
    return `cannot reach the model hub to download ${source.hub} (${message.split('\n')[0]}). Use a local folder, or run where the hub is reachable.`;
  }
  if ('path' in source && !existsSync(source.path)) return `no such folder: ${source.path}`;
  if ('path' in source && dtype !== undefined && existsSync(join(source.path, 'onnx'))) {
    const present = dtypesInFiles(readdirSync(join(source.path, 'onnx')));
    if (!present.includes(dtype))
      return `the folder has no ${dtype} file (onnx/${DTYPE_FILES[dtype] ?? '?'}); it has: ${present.join(', ') || 'no ONNX files'}`;
  }
  return message.split('\n').slice(0, 3).join(' ');
}

async function checkDtype(
  source: ModelSource,
  dtype: string,
  device: string,
  prompts: Prompts,
  family: FamilyId | undefined,
  seed: number,
): Promise<DtypeReport> {
  const started = performance.now();
  let chat: NexusChat | undefined;
  try {
    chat = await NexusChat.load(source, {
      dtype,
      device,
      ...(family ? { family } : {}),
      ...(prompts.systemPrompt !== undefined ? { systemPrompt: prompts.systemPrompt } : {}),
      ...(prompts.answerPrompt !== undefined ? { answerPrompt: prompts.answerPrompt } : {}),
    });
    const profile = chat.info.family;
    // The same seed for every model and dtype: their verdicts answer the same questions.
    const scores = await askModelQuestions(chat, seededRandom(seed));
    return {
      dtype,
      device,
      ...(profile ? { family: profile } : {}),
      scores,
      correct: scores.filter((s) => s.called && s.grounded).length,
      ms: performance.now() - started,
      tokensPerSecond: speedOf(scores),
    };
  } catch (error) {
    return { dtype, device, error: causeOf(error, source, dtype), scores: [], correct: 0, ms: performance.now() - started, tokensPerSecond: 0 };
  } finally {
    await chat?.dispose();
  }
}

function printTable(out: CliOutput, model: string, reports: DtypeReport[]): void {
  const family = reports.find((r) => r.family)?.family;
  out.log(`\n${model}${family ? `\n  profile: ${family.label} (${family.detectedBy})` : ''}`);
  out.log('  family         dtype    question         called  args  grounded  forced  generations');
  const label = (family?.id ?? '?').padEnd(14);
  for (const report of reports) {
    if (report.error) {
      out.log(`  ${label} ${report.dtype.padEnd(8)} could not load: ${report.error}`);
      continue;
    }
    for (const s of report.scores) {
      const yes = (b: boolean) => (b ? 'yes' : 'no').padEnd(6);
      out.log(
        `  ${label} ${report.dtype.padEnd(8)} ${s.question.padEnd(16)} ${yes(s.called)}  ${yes(s.argumentsCorrect)}${yes(s.grounded)}    ${yes(s.needed_forcing)}  ${s.generations}`,
      );
    }
    out.log(
      `  ${label} ${report.dtype.padEnd(8)} ${report.correct}/3 correct in ${(report.ms / 1000).toFixed(1)} s · ${report.tokensPerSecond.toFixed(1)} tokens/s`,
    );
  }
}

/** The command line, parsed (throws on an unknown flag). */
function parseArgsOf(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      models: { type: 'string' },
      seed: { type: 'string' },
      dtypes: { type: 'string' },
      device: { type: 'string', default: 'cpu' },
      prompts: { type: 'string' },
      family: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

/** Where the command writes: the console in the bin, a collector in tests. */
export interface CliOutput {
  log(line: string): void;
  error(line: string): void;
}

/**
 * The `test-models` command: parses `argv`, judges each model, writes the table and the verdicts.
 * @param argv - the arguments after the command (`process.argv.slice(2)` in the bin).
 * @param out - where lines go (default the console).
 * @returns the exit code: 0 when every model has a usable dtype, 1 when one has none, 2 for bad arguments.
 */
export async function main(argv: readonly string[], out: CliOutput = console): Promise<number> {
  let args: ReturnType<typeof parseArgsOf>;
  try {
    args = parseArgsOf([...argv]);
  } catch (error) {
    out.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (args.values.help) {
    out.log(USAGE);
    return 0;
  }
  // `browser-llm-nexus test-models …`: the one command; anything else is a typo worth saying.
  const unknown = args.positionals.filter((p) => p !== 'test-models');
  if (unknown.length) {
    out.error(`Unknown command ${unknown.join(' ')}.\n${USAGE}`);
    return 2;
  }
  const models = (args.values.models ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (models.length === 0) {
    out.error(`No model named.\n${USAGE}`);
    return 2;
  }
  const asked = args.values.dtypes
    ?.split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  try {
    for (const dtype of asked ?? []) checkOption('--dtypes', dtype, DTYPES);
    checkOption('--device', args.values.device ?? 'cpu', DEVICES);
    if (args.values.family !== undefined) checkOption('--family', args.values.family, Object.keys(MODEL_FAMILIES));
  } catch (error) {
    out.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  let prompts: Prompts;
  try {
    prompts = readPrompts(args.values.prompts);
  } catch (error) {
    out.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const family = args.values.family;
  const seedText = args.values.seed;
  if (seedText !== undefined && !/^\d{1,15}$/.test(seedText)) {
    out.error(`--seed ${seedText} is not a non-negative integer.\n${USAGE}`);
    return 2;
  }
  const seed = seedText === undefined ? freshSeed() : Number(seedText);
  if (!args.values.json) out.log(`Questions drawn with --seed ${seed}`);
  const verdicts: ModelVerdict[] = [];
  for (const model of models) {
    const source = sourceOf(model);
    const reports: DtypeReport[] = [];
    for (const dtype of dtypesToJudge(source, asked))
      reports.push(await checkDtype(source, dtype, args.values.device ?? 'cpu', prompts, family as FamilyId | undefined, seed));
    if (!args.values.json) printTable(out, describeSource(source), reports);
    verdicts.push(verdictFor(model, reports));
  }
  if (args.values.json) {
    out.log(JSON.stringify({ seed, verdicts }, null, 2));
  } else {
    out.log(`\nVERDICT\n${'-'.repeat(78)}`);
    for (const verdict of verdicts) {
      const source = sourceOf(verdict.model);
      const literal = 'hub' in source ? `{ hub: '${source.hub}' }` : `{ url: '/models/${verdict.model.split('/').filter(Boolean).pop() ?? verdict.model}' }`;
      out.log(formatVerdict(verdict, (dtype) => `await NexusChat.load(${literal}, { dtype: '${dtype}' });`));
    }
  }
  return verdicts.every((v) => v.kind === 'use') ? 0 : 1;
}

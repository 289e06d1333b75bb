/**
 * Recall of the tool index's rankings on the labelled many-tools fixture, and its build and query
 * times at 60 and 600 tools. `npm run bench` prints them with the fixture sentence encoder;
 * `npm run recall:tools` runs a real embedding model where it can be downloaded:
 *
 *   npm run recall:tools                                   (Xenova/all-MiniLM-L6-v2 from the hub)
 *   npm run recall:tools -- --model Xenova/bge-small-en-v1.5 --pooling cls
 *   npm run recall:tools -- --path /models/all-MiniLM-L6-v2   (a local copy)
 *   npm run recall:tools -- --hub https://mirror.example/
 */
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { LABELLED_MESSAGES, MANY_TOOLS, type LabelledMessage } from '../fixtures/many-tools/many-tools.ts';
import { ToolIndex, type Embedder, type IndexedTool } from '../../src/tools/tool-index.ts';
import { DEFAULT_EMBEDDING_MODEL, type EmbeddingModel } from '../../src/engine/embedding-model.ts';
import { loadEmbedder } from '../../src/engine/load-embedder.ts';
import { FIXTURE_MODELS_DIR } from '../fixtures/prepare-models.ts';

/** The fixture sentence encoder (a word-vector model; see build-tiny-embedder.py). */
export const FIXTURE_EMBEDDER: EmbeddingModel = { source: { path: `${FIXTURE_MODELS_DIR}tiny-embed-bert` }, dtype: 'q8' };

/** Recall@1 and @5 of one ranking on a set of messages. */
export interface Recall {
  at1: number;
  at5: number;
  n: number;
}

/** Per ranking, on messages in the tools' own words, in other words, and all. */
export type RecallTable = Record<'lexical' | 'semantic' | 'combined', Record<'own' | 'other' | 'all', Recall>>;

function recallOf(ranked: readonly (readonly string[])[], messages: readonly LabelledMessage[]): Recall {
  let at1 = 0;
  let at5 = 0;
  messages.forEach((m, i) => {
    const names = ranked[i] ?? [];
    if (names[0] === m.tool) at1++;
    if (names.slice(0, 5).includes(m.tool)) at5++;
  });
  return { at1: at1 / Math.max(1, messages.length), at5: at5 / Math.max(1, messages.length), n: messages.length };
}

/** Measures each ranking's recall on the 155 labelled messages, with `embed` for the semantic one. */
export async function measureRecall(embed: Embedder): Promise<RecallTable> {
  const index = new ToolIndex(MANY_TOOLS, embed);
  const lexical: string[][] = [];
  const semantic: string[][] = [];
  const combined: string[][] = [];
  for (const m of LABELLED_MESSAGES) {
    lexical.push(index.searchLexical(m.text, 5).map((h) => h.name));
    semantic.push((await index.searchSemantic(m.text, 5)).map((h) => h.name));
    combined.push((await index.search(m.text, 5)).map((h) => h.name));
  }
  const split = (ranked: string[][]) => {
    const pick = (own: boolean | undefined) => {
      const at = LABELLED_MESSAGES.flatMap((m, i) => (own === undefined || m.ownWords === own ? [i] : []));
      return recallOf(
        at.map((i) => ranked[i]!),
        at.map((i) => LABELLED_MESSAGES[i]!),
      );
    };
    return { own: pick(true), other: pick(false), all: pick(undefined) };
  };
  return { lexical: split(lexical), semantic: split(semantic), combined: split(combined) };
}

/** Six hundred tools: the sixty, each in ten variants (another name, its description with a qualifier). */
export function sixHundredTools(): IndexedTool[] {
  const qualifiers = [
    '',
    'for work',
    'for the family account',
    'on the shared drive',
    'in the second home',
    'for the team',
    'in the archive',
    'for the demo tenant',
    'on the legacy system',
    'in the sandbox',
  ];
  return qualifiers.flatMap((q, k) =>
    MANY_TOOLS.map((t) => ({
      function: {
        ...t.function,
        name: k ? `${t.function.name}_${k}` : t.function.name,
        description: q ? `${t.function.description} ${q}` : t.function.description,
      },
    })),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Index build time (lexical; and with the encoder, embedding every tool) and query time, at 60 and 600 tools. */
export async function benchToolIndex(
  embed: Embedder,
): Promise<{ tools: number; buildMs: number; buildWithVectorsMs: number; lexicalQueryMs: number; combinedQueryMs: number }[]> {
  const rows = [];
  for (const tools of [MANY_TOOLS, sixHundredTools()]) {
    const builds: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      new ToolIndex(tools);
      builds.push(performance.now() - started);
    }
    const started = performance.now();
    const semantic = new ToolIndex(tools, embed);
    await semantic.warm();
    const buildWithVectorsMs = performance.now() - started;
    const lexicalTimes: number[] = [];
    const combinedTimes: number[] = [];
    for (const m of LABELLED_MESSAGES) {
      let at = performance.now();
      semantic.searchLexical(m.text, 20);
      lexicalTimes.push(performance.now() - at);
      at = performance.now();
      await semantic.search(m.text, 5);
      combinedTimes.push(performance.now() - at);
    }
    rows.push({
      tools: tools.length,
      buildMs: median(builds),
      buildWithVectorsMs,
      lexicalQueryMs: median(lexicalTimes),
      combinedQueryMs: median(combinedTimes),
    });
  }
  return rows;
}

/** Prints a recall table. */
export function printRecall(table: RecallTable, label: string): void {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  console.log(
    `recall on ${LABELLED_MESSAGES.length} labelled messages (${label})      own words (${table.lexical.own.n})   other words (${table.lexical.other.n})   all`,
  );
  for (const ranking of ['lexical', 'semantic', 'combined'] as const) {
    const r = table[ranking];
    console.log(
      `  ${ranking.padEnd(9)} @1 ${pct(r.own.at1)} @5 ${pct(r.own.at5)}   @1 ${pct(r.other.at1)} @5 ${pct(r.other.at5)}   @1 ${pct(r.all.at1)} @5 ${pct(r.all.at5)}`,
    );
  }
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const path = argument('path');
  const model: EmbeddingModel = {
    ...DEFAULT_EMBEDDING_MODEL,
    source: path ? { path } : { hub: argument('model') ?? (DEFAULT_EMBEDDING_MODEL.source as { hub: string }).hub },
    ...(argument('pooling') ? { pooling: argument('pooling') as 'mean' | 'cls' } : {}),
    ...(argument('dtype') ? { dtype: argument('dtype') as 'q8' } : {}),
  };
  try {
    const embedder = await loadEmbedder(model, { device: 'cpu', hubUrl: argument('hub') });
    console.log(
      `${embedder.info.model} (${embedder.info.dtype}): ${embedder.info.dimensions} dimensions, ${(embedder.info.bytes / 1e6).toFixed(1)} MB read, loaded in ${embedder.info.loadMs} ms`,
    );
    printRecall(await measureRecall(embedder.embed), embedder.info.model);
    for (const row of await benchToolIndex(embedder.embed)) {
      console.log(
        `${String(row.tools).padStart(4)} tools: index ${row.buildMs.toFixed(1)} ms, with vectors ${row.buildWithVectorsMs.toFixed(0)} ms; query lexical ${row.lexicalQueryMs.toFixed(2)} ms, combined ${row.combinedQueryMs.toFixed(2)} ms`,
      );
    }
    await embedder.dispose();
  } catch (error) {
    console.error(`Not measured: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
}

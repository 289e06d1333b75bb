import { describe, expect, it } from 'vitest';
import { LABELLED_MESSAGES, MANY_TOOLS } from '../../tests/fixtures/many-tools/many-tools.ts';
import { ToolIndex, type Embedder } from './tool-index.ts';
import { nameWords } from './tool-words.ts';

/** Share of messages whose tool is in the top `k` of `rank`. */
async function recallAt(k: number, messages: typeof LABELLED_MESSAGES, rank: (text: string) => Promise<string[]> | string[]): Promise<number> {
  let hits = 0;
  for (const m of messages) if ((await rank(m.text)).slice(0, k).includes(m.tool)) hits++;
  return hits / messages.length;
}

const ownWords = LABELLED_MESSAGES.filter((m) => m.ownWords);
const otherWords = LABELLED_MESSAGES.filter((m) => !m.ownWords);

describe('ToolIndex', () => {
  const index = new ToolIndex(MANY_TOOLS);

  it("has a fixture worth measuring: 60 tools, at least 150 labelled messages, most not in the tools' words", () => {
    expect(MANY_TOOLS.length).toBeGreaterThanOrEqual(60);
    expect(LABELLED_MESSAGES.length).toBeGreaterThanOrEqual(150);
    expect(otherWords.length).toBeGreaterThan(ownWords.length);
    const names = new Set(MANY_TOOLS.map((t) => t.function.name));
    for (const m of LABELLED_MESSAGES) expect(names.has(m.tool), m.tool).toBe(true);
  });

  it('finds the tool in the top 5 for at least 95% of the messages that share its words (lexical)', async () => {
    const recall5 = await recallAt(5, ownWords, (text) => index.searchLexical(text, 5).map((r) => r.name));
    const recall1 = await recallAt(1, ownWords, (text) => index.searchLexical(text, 1).map((r) => r.name));
    const elsewhere5 = await recallAt(5, otherWords, (text) => index.searchLexical(text, 5).map((r) => r.name));
    console.log(
      `lexical: own words recall@1 ${recall1.toFixed(3)}, recall@5 ${recall5.toFixed(3)}; other words recall@5 ${elsewhere5.toFixed(3)} (${ownWords.length} / ${otherWords.length} messages)`,
    );
    expect(recall5).toBeGreaterThanOrEqual(0.95);
  });

  it('reads stems, parameter names and enum values, not only names', () => {
    expect(index.searchLexical('forecasting Berlin', 3).map((r) => r.name)).toContain('get_forecast');
    expect(index.searchLexical('dim the study', 3).map((r) => r.name)).toContain('set_lights'); // an enum value
    expect(index.searchLexical('ticker AAPL', 3).map((r) => r.name)).toContain('stock_price'); // a parameter's description
    expect(nameWords('sendEmail_now')).toBe('send email now');
  });

  it('fuses a semantic ranking with the lexical one: a tool both rank high comes first, one alone still counts', async () => {
    // A stand-in embedder with two directions: "light" for set_lights and anything about darkness, "other" for the rest.
    const embed: Embedder = async (texts) => texts.map((t) => (/dark|light|bright/i.test(t) ? [1, 0] : [0, 1]));
    const semantic = new ToolIndex(MANY_TOOLS, embed);
    const dark = await semantic.search("It's too dark in the kitchen", 5);
    expect(dark[0]).toMatchObject({ name: 'set_lights' });
    expect(['semantic', 'combined']).toContain(dark[0]?.by);
    // Without a semantic hint, the lexical ranking leads and is labelled so.
    const email = await semantic.search('Send an email to bob@example.com', 5);
    expect(email.map((r) => r.name)).toContain('send_email');
    // The tools are embedded once, however many queries follow.
    let calls = 0;
    const counting = new ToolIndex(MANY_TOOLS, async (texts) => {
      calls += texts.length > 1 ? 1 : 0;
      return texts.map(() => [1, 0]);
    });
    await counting.search('a');
    await counting.search('b');
    expect(calls).toBe(1);
  });

  it('builds for 60 tools and answers a query in a few milliseconds', () => {
    const started = performance.now();
    const built = new ToolIndex(MANY_TOOLS);
    const buildMs = performance.now() - started;
    const queryStarted = performance.now();
    for (const m of LABELLED_MESSAGES) built.searchLexical(m.text, 5);
    const queryMs = (performance.now() - queryStarted) / LABELLED_MESSAGES.length;
    console.log(`tool index: build ${buildMs.toFixed(1)} ms for ${MANY_TOOLS.length} tools, query ${queryMs.toFixed(2)} ms`);
    expect(built.size).toBe(MANY_TOOLS.length);
  });
});

import { describe, expect, it } from 'vitest';
import { PREFER_FASTER_BY, formatVerdict, speedOf, verdictFor, type DtypeReport, type QuestionScore } from './model-report.ts';

const score = (ok: boolean, newTokens: number, tokensPerSecond: number): QuestionScore => ({
  question: 'q',
  tool: 't',
  called: ok,
  argumentsCorrect: ok,
  grounded: ok,
  needed_forcing: false,
  answer: '',
  generations: 2,
  promptTokens: 100,
  newTokens,
  tokensPerSecond,
  ms: 10,
});
const report = (dtype: string, correct: number, tokensPerSecond: number): DtypeReport => ({
  dtype,
  device: 'wasm',
  scores: [score(correct > 0, 30, tokensPerSecond)],
  correct,
  ms: 1000,
  tokensPerSecond,
});

describe('the verdict over dtypes', () => {
  it('uses the fastest dtype that passes when it is clearly faster, and says why', () => {
    const verdict = verdictFor('m', [report('q4', 3, 0.55), report('q8', 3, 1.37)]);
    expect(verdict).toMatchObject({ kind: 'use', dtype: 'q8' });
    expect(formatVerdict(verdict, (d) => `load ${d}`)).toContain("USE dtype 'q8' — 3/3 tool calls correct (the fastest that passes: 1.4 tokens/s)");
  });

  it('says how the model writes calls, under its profile', () => {
    const calls = 'calls written as <|tool_calls_section_begin|><|tool_call_begin|>functions.⟨name⟩:⟨0⟩… (learned from its template)';
    const verdict = {
      ...verdictFor('m', [report('q4', 3, 1)]),
      family: { id: 'generic', label: 'learned from its chat template', detectedBy: 'no known family', calls },
    } as const;
    expect(formatVerdict(verdict, (d) => `load ${d}`).split('\n')[1]).toBe(`  ${calls}`);
  });

  it('says a refused model is refused, and names no call syntax for it (issue 66, item 5)', () => {
    const verdict = {
      ...verdictFor('m', [report('q4', 0, 1)]),
      family: {
        id: 'generic',
        label: 'learned from its chat template',
        detectedBy: 'no known family',
        calls: 'calls written as <tool_call>… (the generic profile)',
        templateProblem: 'cannot render plain chat (fails: x)',
      },
    } as const;
    const text = formatVerdict(verdict, (d) => `load ${d}`);
    expect(text).not.toContain('calls written as');
    expect(text).toContain('NOT USABLE: its chat template cannot render plain chat (fails: x)');
  });

  it('keeps the first passing dtype when the other is not faster by a clear margin (timing noise)', () => {
    expect(verdictFor('m', [report('q4', 3, 10), report('q8', 3, 10 * PREFER_FASTER_BY - 0.1)]).dtype).toBe('q4');
  });

  it('never prefers a faster dtype that does not pass', () => {
    expect(verdictFor('m', [report('q4', 3, 1), report('q8', 2, 50)])).toMatchObject({ kind: 'use', dtype: 'q4' });
  });

  it('measures speed as all tokens over all generation time', () => {
    expect(speedOf([score(true, 10, 10), score(true, 30, 30)])).toBeCloseTo(20, 5);
    expect(speedOf([])).toBe(0);
  });
});

import type { FamilyInfo } from '../engine/model-family.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import type { CheckChat } from './check-chat.ts';
import { argumentsMatch, freshToken, modelCheckQuestions } from './check-questions.ts';
import { CHECK_MAX_NEW_TOKENS, scoreAnswer } from './self-check.ts';

/** One question's outcome. */
export interface QuestionScore {
  question: string;
  tool: string;
  called: boolean;
  argumentsCorrect: boolean;
  grounded: boolean;
  needed_forcing: boolean;
  answer: string;
  generations: number;
  promptTokens: number;
  /** Tokens generated, and generated per second of generation time. */
  newTokens: number;
  tokensPerSecond: number;
  ms: number;
}

/** One model × dtype: loaded or not, and the questions' scores. */
export interface DtypeReport {
  dtype: string;
  device: string;
  /** Why it could not be loaded, when it could not. */
  error?: string;
  /** The profile the questions were asked through (known once the model loaded). */
  family?: FamilyInfo;
  scores: QuestionScore[];
  /** Questions called and grounded. */
  correct: number;
  ms: number;
  /** Generated tokens per second of generation time over the questions (0 when nothing was generated). */
  tokensPerSecond: number;
}

/** The speed of a dtype over its questions: all tokens generated over all time spent generating them. */
export function speedOf(scores: readonly QuestionScore[]): number {
  const timed = scores.filter((s) => s.tokensPerSecond > 0 && s.newTokens > 0);
  const tokens = timed.reduce((n, s) => n + s.newTokens, 0);
  const seconds = timed.reduce((n, s) => n + s.newTokens / s.tokensPerSecond, 0);
  return seconds > 0 ? tokens / seconds : 0;
}

/**
 * A passing dtype must be this much faster than the first passing one to be preferred over it: a
 * real difference (ONNX Runtime Web's 4-bit path against dynamic int8 is 2.5×; Node's 4-bit against
 * int8 about 7×) and not the noise of two timings on a busy machine.
 */
export const PREFER_FASTER_BY = 1.5;

/** The verdict for one model over its dtypes. */
export interface ModelVerdict {
  model: string;
  /** `use`: a dtype got every question right; `flaky`: the best got some; `never`: none called and grounded any. */
  kind: 'use' | 'flaky' | 'never';
  /** The profile the verdict was measured through: it judges the model in that dialect. */
  family?: FamilyInfo;
  dtype?: string;
  best: number;
  of: number;
  dtypes: DtypeReport[];
}

/**
 * Asks the three check questions in fresh conversations, with all three tools registered each
 * time (so the model must also pick the right one). Every run uses fresh values and tokens.
 */
export async function askModelQuestions(chat: CheckChat, random: () => number = Math.random): Promise<QuestionScore[]> {
  const questions = modelCheckQuestions(random);
  const tokens = questions.map(() => freshToken(random));
  const tools = new ToolRegistry();
  for (const [i, q] of questions.entries()) {
    tools.tool(q.tool.name, q.tool.description, q.tool.parameters, (args: Record<string, unknown>) => q.result(tokens[i] ?? '', args));
  }
  const scores: QuestionScore[] = [];
  for (const [i, q] of questions.entries()) {
    const token = tokens[i] ?? '';
    const started = performance.now();
    try {
      // Each question in a fresh side conversation: no history, the chat's own tools untouched.
      const answer = await chat.chat(q.question, { maxNewTokens: CHECK_MAX_NEW_TOKENS, toolkit: { tools }, isolated: true });
      const score = scoreAnswer(q, token, answer);
      scores.push({
        question: q.id,
        tool: q.tool.name,
        called: score.called,
        grounded: score.grounded,
        needed_forcing: score.needed_forcing,
        argumentsCorrect: score.call ? argumentsMatch(q.expected, score.call.arguments) : false,
        answer: answer.text,
        generations: answer.metrics.generations,
        promptTokens: answer.metrics.promptTokens,
        newTokens: answer.metrics.newTokens,
        tokensPerSecond: answer.metrics.tokensPerSecond,
        ms: performance.now() - started,
      });
    } catch (error) {
      scores.push({
        question: q.id,
        tool: q.tool.name,
        called: false,
        grounded: false,
        needed_forcing: false,
        argumentsCorrect: false,
        answer: `(failed: ${error instanceof Error ? error.message : String(error)})`,
        generations: 0,
        promptTokens: 0,
        newTokens: 0,
        tokensPerSecond: 0,
        ms: performance.now() - started,
      });
    }
  }
  return scores;
}

/** The verdict over a model's dtypes: use the first that got every question right. */
export function verdictFor(model: string, dtypes: DtypeReport[]): ModelVerdict {
  const of = 3;
  const family = dtypes.find((d) => d.family)?.family;
  const verdict = verdictOver(model, dtypes, of);
  return family ? { ...verdict, family } : verdict;
}

function verdictOver(model: string, dtypes: DtypeReport[], of: number): ModelVerdict {
  const passing = dtypes.filter((d) => d.correct === of && !d.error);
  const first = passing[0];
  const fastest = passing.reduce<DtypeReport | undefined>((best, d) => (!best || d.tokensPerSecond > best.tokensPerSecond ? d : best), undefined);
  const perfect = first && fastest && fastest.tokensPerSecond >= first.tokensPerSecond * PREFER_FASTER_BY ? fastest : first;
  const best = Math.max(0, ...dtypes.map((d) => d.correct));
  if (perfect) return { model, kind: 'use', dtype: perfect.dtype, best: of, of, dtypes };
  const bestDtype = dtypes.find((d) => d.correct === best && best > 0);
  return { model, kind: best > 0 ? 'flaky' : 'never', ...(bestDtype ? { dtype: bestDtype.dtype } : {}), best, of, dtypes };
}

/** The VERDICT block, as the CLI prints it. */
export function formatVerdict(verdict: ModelVerdict, loadLine: (dtype: string) => string): string {
  const lines = [verdict.family ? `${verdict.model} — ${verdict.family.label} profile (${verdict.family.detectedBy})` : verdict.model];
  // A refused model's calls are its NOT USABLE line below.
  if (verdict.family?.calls && !verdict.family.templateProblem) lines.push(`  ${verdict.family.calls}`);
  if (verdict.kind === 'use' && verdict.dtype) {
    // Said only when the verdict passed over an earlier passing dtype for speed.
    const firstPassing = verdict.dtypes.find((d) => d.correct === verdict.of && !d.error);
    const chosen = verdict.dtypes.find((d) => d.dtype === verdict.dtype);
    const why = firstPassing && chosen && firstPassing !== chosen ? ` (the fastest that passes: ${chosen.tokensPerSecond.toFixed(1)} tokens/s)` : '';
    lines.push(`  USE dtype '${verdict.dtype}' — ${verdict.of}/${verdict.of} tool calls correct${why}`, `  ${loadLine(verdict.dtype)}`);
  } else if (verdict.kind === 'flaky') {
    lines.push(`  FLAKY: best is dtype '${verdict.dtype}' with ${verdict.best}/${verdict.of} tool calls correct — not safe to ship.`);
  } else if (verdict.family?.templateProblem) {
    lines.push(`  NOT USABLE: its chat template ${verdict.family.templateProblem}; the loop cannot offer it tools. Use a model of a family with tool support.`);
  } else {
    const loaded = verdict.dtypes.filter((d) => !d.error).length;
    lines.push(
      loaded === 0
        ? '  NOT USABLE: no dtype could be loaded (see the errors above).'
        : '  NOT USABLE: this model does not call tools at any dtype tried. Try a larger model — below ~0.5B this usually cannot be fixed.',
    );
  }
  return lines.join('\n');
}

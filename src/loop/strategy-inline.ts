import { ToolCallStreamFilter, stripThinking } from '../toolcalls/index.ts';
import type { AnswerRun } from './answer-run.ts';
import type { Attempt } from './attempt.ts';
import { LearnedCallHider, parseInFamily } from './family-calls.ts';
import { recoverPseudoToolText } from './recover-pseudo-tool.ts';
import { withoutMarkers } from './strip-markers.ts';
import type { CallSource } from './types.ts';

/**
 * One free generation, streamed to the page through the hold-back filter (so call markup and
 * thinking never show), then parsed. Calls are sorted into registered ones and unknown ones; a
 * lone pseudo-tool call (`respond`, `answer`, …) carrying a plausible reply becomes that reply.
 * When the prompt offered no tools, any call markup is stripped and nothing is returned as a call.
 * The answer's sampling settings apply (a call the sample writes is checked like any other).
 */
export async function attemptInline(run: AnswerRun, prompt: string, source: CallSource = 'inline', toolsOffered = true): Promise<Attempt> {
  const filter = new ToolCallStreamFilter();
  const hider = new LearnedCallHider(run.engine.family);
  const emitVisible = (text: string) => run.token(hider.push(text));
  const generated = await run.generate(
    prompt,
    {
      maxNewTokens: run.settings.maxNewTokens,
      onText: (chunk) => {
        const update = filter.push(chunk);
        run.reasoning(update.reasoning);
        emitVisible(update.text);
      },
      // Sampled whenever the answer asks for a sample (a temperature, a Regenerate), the free choice to call
      // included: greedy there, a new sample of an answer written instead of a call came out the same every
      // time (issue 54). What a call then says is still checked; the forced rungs stay greedy and constrained.
      ...(run.settings.sampling ? { sampling: run.settings.sampling } : {}),
    },
    source,
  );
  const last = filter.end();
  run.reasoning(last.reasoning);
  emitVisible(last.text);
  run.token(hider.end());

  const raw = generated.text;
  const parsed = parseInFamily(run.engine.family, stripThinking(raw));
  const attempt: Attempt = { source, calls: [], unknown: [], order: [], text: parsed.text, raw };
  if (!toolsOffered) return attempt;

  const markers = run.engine.family.valueMarkers;
  for (const call of parsed.calls.map((c) => withoutMarkers(c, markers))) {
    const name = run.resolveCall(call.name);
    const sorted = name ? { name, arguments: call.arguments } : call;
    (name ? attempt.calls : attempt.unknown).push(sorted);
    attempt.order.push(sorted);
  }
  const [only] = attempt.unknown;
  if (attempt.calls.length === 0 && attempt.unknown.length === 1 && only) {
    const reply = recoverPseudoToolText(only);
    if (reply !== undefined) {
      emitVisible(attempt.text ? `\n\n${reply}` : reply);
      return { ...attempt, unknown: [], order: [], text: attempt.text ? `${attempt.text}\n\n${reply}` : reply };
    }
  }
  return attempt;
}

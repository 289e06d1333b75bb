import type { AnswerRun } from './answer-run.ts';
import { emptyAttempt, type Attempt } from './attempt.ts';
import { parseInFamily } from './family-calls.ts';
import { withoutMarkers } from './strip-markers.ts';

/**
 * Generates again from the same prompt with the call syntax already open (in the model family's
 * own dialect), so prose is not a possible continuation. The completion is parsed leniently and kept only if it names a
 * registered tool; a made-up name is discarded (never remapped), counted, and reported.
 * With `forcedName` the name is written too and only the arguments are generated.
 */
export async function attemptPrimed(run: AnswerRun, prompt: string, forcedName?: string): Promise<Attempt> {
  const family = run.engine.family;
  const prefix = forcedName ? family.forcedCallOpener(forcedName) : family.callOpener;
  const stop = family.callClosers.length ? { stop: [...family.callClosers] } : {};
  const generated = await run.generate(prompt + prefix, { maxNewTokens: 256, ...stop }, 'primed', prefix);
  const raw = prefix + generated.text;
  const parsed = parseInFamily(family, raw);
  const attempt = emptyAttempt('primed', raw);
  const markers = family.valueMarkers;
  for (const call of parsed.calls.map((c) => withoutMarkers(c, markers))) {
    const name = run.resolveCall(call.name);
    if (name) attempt.calls.push({ name, arguments: call.arguments });
  }
  attempt.order = attempt.calls;
  if (attempt.calls.length === 0) {
    const name = parsed.calls[0]?.name;
    run.record({
      kind: 'forced-failed',
      round: run.round,
      strategy: 'primed',
      raw,
      ...(name === undefined ? {} : { name }),
      reason: name === undefined ? 'No call could be read from the primed generation.' : `'${name}' is not a registered tool.`,
    });
  }
  return attempt;
}

/**
 * An answer's diagnostics: its metrics, and each round (with the tools it offered), generation, forced rung and
 * server log. (Every session that opens Diagnostics would fetch them: a chunk of their own would only add a request.)
 */
import { html } from 'lit';
import { offeredNames, type AnswerMetrics, type Step } from '../../internal.ts';
import type { AnswerView } from '../conversation/answer-view.ts';
import type { DiagnosticEntry } from '../state/app-state.ts';
import { formatSeconds, formatWait } from '../format.ts';

/** The diagnostics of one answer, from its view and its steps; `model` is the answer's model line. */
export function answerDiagnostics(view: AnswerView, model: string | undefined, steps: readonly Step[] = []) {
  const { metrics, diagnostics } = view;
  const offered = toolsOfRounds(steps);
  return html`<section class="diagnostics" data-testid="diagnostics" aria-label="Diagnostics">
    ${metrics ? renderMetrics(metrics, model) : html`<p class="muted">No metrics: the answer did not finish.</p>`}
    <ol class="entries">
      ${diagnostics.map((d) => renderDiagnostic(d, offered))}
    </ol>
  </section>`;
}

function renderMetrics(m: AnswerMetrics, model: string | undefined) {
  const rows: [string, string | number][] = [
    ['rounds', m.rounds],
    ['answer rounds', m.answerRounds],
    ['generations', m.generations],
    ['prompt tokens', m.promptTokens],
    ['cached tokens', m.cachedTokens],
    ['new tokens', m.newTokens],
    ['tool calls', m.toolCalls],
    ['forced calls', m.forcedCalls],
    ['tokens / s', m.tokensPerSecond.toFixed(1)],
    ...(m.firstTextMs === undefined ? [] : ([['first words', formatWait(m.firstTextMs)]] as [string, string][])),
    ['time', formatSeconds(m.ms)],
  ];
  if (model) rows.unshift(['model', model]);
  return html`<dl class="metrics" data-testid="metrics">${rows.map(([k, v]) => html`<div class=${k === 'model' ? 'wide' : ''}><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}

function renderDiagnostic(d: DiagnosticEntry, offered: ReadonlyMap<number, string[]>) {
  switch (d.kind) {
    case 'round':
      return html`<li data-testid="diagnostic-round"><span class="kind">Round ${d.round}</span> <span class="muted">${roundWords(d, offered.get(d.round))}</span></li>`;
    case 'raw':
      return html`<li><span class="kind">Generation</span> <span class="muted">round ${d.round}, ${d.strategy}</span><pre>${d.text || '(empty)'}</pre></li>`;
    case 'step':
      return html`<li><span class="kind">Step ${d.which}</span> <span class="muted">→ ${d.resolved}</span><pre>${d.raw}</pre></li>`;
    case 'log':
      return html`<li data-testid="diagnostic-log"><span class="kind">Log of ${d.server}</span> <span class="muted">${d.level}</span> ${d.text}</li>`;
    case 'forced':
      return html`<li><span class="kind">Forced call discarded</span> <span class="muted">${d.event.strategy}${d.event.name ? `, wrote '${d.event.name}'` : ''}: ${d.event.reason}</span><pre>${d.event.raw}</pre></li>`;
  }
}

/** What a round offered, in words: the tools by name, never an empty list (issue 54, P3). */
function roundWords(d: Extract<DiagnosticEntry, { kind: 'round' }>, tools: string[] | undefined): string {
  if (d.roundKind === 'answer') return 'answer round (no tools)';
  if (!tools) return 'tools offered';
  return tools.length ? `tools offered: ${tools.join(', ')}` : 'no tools offered';
}

/** Each tool round's tools, from the steps before it: those the answer started with, as effects changed them. */
export function toolsOfRounds(steps: readonly Step[]): Map<number, string[]> {
  const started = steps.find((step) => step.kind === 'started');
  const rounds = new Map<number, string[]>();
  if (started?.kind !== 'started') return rounds;
  steps.forEach((step, i) => {
    if (step.kind === 'round' && step.phase === 'tools') rounds.set(step.round, [...offeredNames(steps.slice(0, i), started.offered, () => true)]);
  });
  return rounds;
}

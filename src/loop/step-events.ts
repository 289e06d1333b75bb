import type { Emitter } from './emitter.ts';
import type { Step } from './step-log.ts';
import type { ChatEvents } from './types.ts';

/** One event with its arguments, as `emit` takes them. */
type ChatEventTuple = { [K in keyof ChatEvents]: [K, ...ChatEvents[K]] }[keyof ChatEvents];

type Projection<K extends Step['kind']> = (step: Extract<Step, { kind: K }>) => ChatEventTuple[];

/**
 * The events each kind of step stands for. Events are projections of the log: whoever holds the
 * steps (the loop, the facade on the far side of the worker, a replay) hears the same events.
 * Steps of a kind not listed here are heard only as `stepFinish`.
 */
const PROJECTIONS: { [K in Step['kind']]?: Projection<K> } = {
  round: (step) => [['round', { round: step.round, kind: step.phase }]],
  generation: (step) => [['raw', step.text, { round: step.round, strategy: step.strategy }]],
  escalate: (step) => [['escalate', { round: step.round, rung: step.rung }]],
  choice: (step) => [['step', step.which, step.raw, step.resolved]],
  'unoffered-call': (step) => [['step', 'unoffered', step.written, step.name]],
  'forced-failed': (step) => [
    ['forced', { strategy: step.strategy, raw: step.raw, ...(step.name === undefined ? {} : { name: step.name }), reason: step.reason }],
  ],
  call: (step) => [['toolCall', step.record, step.record.result]],
  memory: ({ kind: _kind, ...trim }) => [['memory', trim]],
};

/** The events (besides `stepFinish`) that `step` stands for. */
function eventsOfStep(step: Step): ChatEventTuple[] {
  const project = PROJECTIONS[step.kind] as Projection<Step['kind']> | undefined;
  return project ? project(step as never) : [];
}

/** Announces an appended step: `stepFinish` with the record itself, then the events it stands for. */
export function emitStep(events: Emitter<ChatEvents>, step: Step): void {
  events.emit('stepFinish', step);
  for (const [name, ...args] of eventsOfStep(step)) (events.emit as (event: keyof ChatEvents, ...rest: unknown[]) => void)(name, ...args);
}

import type { Step } from '../../internal.ts';
import type { Conversation, ConversationBranch, Turn, VersionSet } from '../state/app-state.ts';
import { checkTurn, IMPORT_LIMITS, importedInstructions, isObject, refuse } from './conversation-schema.ts';
import { MAX_VERSIONS } from './conversation-versions.ts';
import { argumentsALineShows } from './answer-view.ts';
import { checkStep, StepCheckError } from './step-check.ts';

/** Steps one imported answer may hold: far more than any answer records, few enough that a file cannot flood the page. */
const MAX_STEPS = 2_000;
const STEP_LIMITS = { textChars: IMPORT_LIMITS.textChars, shortChars: IMPORT_LIMITS.shortChars, dataChars: 100_000 } as const;

/** A turn as the page keeps it, live flags aside (an answer checking or running now is not part of a file). */
function kept(turn: Turn): Turn {
  const { checking: _checking, running: _running, ...rest } = turn;
  return rest;
}

function keptVersions(versions: Record<string, VersionSet> | undefined): Record<string, VersionSet> | undefined {
  if (!versions) return undefined;
  return Object.fromEntries(
    Object.entries(versions).map(([key, set]) => [
      key,
      {
        index: set.index,
        others: set.others.map((branch): ConversationBranch => {
          const nested = keptVersions(branch.versions);
          return { turns: branch.turns.map(kept), ...(nested ? { versions: nested } : {}) };
        }),
      },
    ]),
  );
}

/** The conversation as a version 2 file holds it: as the page keeps it, every answer its steps. */
export function storedShape(conversation: Conversation): Conversation {
  const versions = keptVersions(conversation.versions);
  const { versions: _versions, ...rest } = conversation;
  return { ...rest, turns: conversation.turns.map(kept), ...(versions ? { versions } : {}) };
}

/** What an import dropped of a file's answers, for its note. */
export interface StoredImportReport {
  /** Calls whose result the file held but the page does not show (a search of the web or of the attached files). */
  hiddenResults: number;
}

/** The result a call imported from a file keeps where its line does not show the one the file held. */
const RESULT_NOT_KEPT = '(Not kept: this result came from an imported file, and the page does not show it.)';

/**
 * A call step as the page can draw it. A search's line (of the web, of the attached files) is drawn from the
 * call's details and shows neither its result nor its other arguments, which the model would still read in
 * the next prompt: from a file, those are dropped, and counted for the import's note (issue 67, L1).
 */
function drawableStep(step: Step, web: boolean, report: StoredImportReport): Step {
  if (step.kind !== 'call') return step;
  const shown = argumentsALineShows(step.record, web);
  if (!shown) return step;
  if (step.record.result !== RESULT_NOT_KEPT) report.hiddenResults += 1;
  return { ...step, record: { ...step.record, arguments: shown, result: RESULT_NOT_KEPT } };
}

/**
 * One turn of a version 2 file: its fields checked as a version 1 file's are, an answer's steps rebuilt
 * kind by kind (`step-check.ts`). What the model remembers of an answer is folded from the same steps the
 * page shows it from, so nothing the page does not show can reach the model, but for the answer's text:
 * a finished step must hold the text the turn shows. A call the page draws as a search line keeps only what
 * that line shows ({@link drawableStep}).
 */
function storedTurn(value: unknown, index: number, report: StoredImportReport): Turn {
  const { historyIndex: _index, ...turn } = checkTurn(value, index, 0);
  const where = `Turn ${index + 1}`;
  const raw = (value as Record<string, unknown>).steps;
  if (raw === undefined || turn.role !== 'assistant') return turn;
  if (!Array.isArray(raw)) refuse(where, 'has steps that are not a list');
  if (raw.length > MAX_STEPS) refuse(where, `has more than ${MAX_STEPS} steps`);
  const steps = raw.map((step, i) => {
    try {
      return drawableStep(checkStep(step, STEP_LIMITS), turn.web === true, report);
    } catch (error) {
      if (error instanceof StepCheckError) refuse(`${where}, step ${i + 1},`, error.message);
      throw error;
    }
  });
  refuseRepeatedCalls(steps, where);
  const finished = steps.find((step) => step.kind === 'finished');
  if (finished && finished.text.trim() !== turn.text.trim()) refuse(where, 'shows a text its finished step does not hold');
  return { ...turn, steps };
}

/**
 * Refuses an answer whose calls repeat an id: each call is recorded once and belongs to one turn. The model's
 * memory of an answer is folded from its turns' ids, so one id listed 500 times in each of 2,000 turns made a
 * 5.5 MB file a million messages of history (issue 67, L2).
 */
function refuseRepeatedCalls(steps: readonly Step[], where: string): void {
  const recorded = new Set<string>();
  const listed = new Set<string>();
  for (const step of steps) {
    if (step.kind === 'call') {
      if (recorded.has(step.record.id)) refuse(where, `records two calls with the id '${step.record.id.slice(0, 80)}'`);
      recorded.add(step.record.id);
    } else if (step.kind === 'turn') {
      for (const id of step.callIds) {
        if (listed.has(id)) refuse(where, `lists the call '${id.slice(0, 80)}' twice: a call belongs to one turn, once`);
        listed.add(id);
      }
    }
  }
}

function storedVersions(
  value: unknown,
  turns: readonly Turn[],
  budget: { turns: number },
  where: string,
  report: StoredImportReport,
  from = 0,
): Record<string, VersionSet> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) refuse(where, 'has versions that are not an object');
  const versions: Record<string, VersionSet> = {};
  for (const [key, set] of Object.entries(value)) {
    const at = Number(key);
    const place = `${where}, the versions at turn ${at + 1}`;
    if (!Number.isInteger(at) || at < from || turns[at]?.role !== 'user') refuse(place, 'are not at a user message');
    if (!isObject(set) || !Array.isArray(set.others)) refuse(place, 'are not {others, index}');
    if (set.others.length >= MAX_VERSIONS) refuse(place, `are more than ${MAX_VERSIONS}`);
    if (!Number.isInteger(set.index) || (set.index as number) < 0 || (set.index as number) > set.others.length) refuse(place, 'have an index outside them');
    const others = set.others.map((branch: unknown, i: number): ConversationBranch => {
      const version = `${place}, version ${i + 1}`;
      if (!isObject(branch) || !Array.isArray(branch.turns)) refuse(version, 'is not {turns}');
      budget.turns -= branch.turns.length;
      if (budget.turns < 0) refuse('The conversation', `has more than ${IMPORT_LIMITS.turns} turns with its versions`);
      const branchTurns = branch.turns.map((turn, n) => storedTurn(turn, at + n, report));
      if (branchTurns[0]?.role !== 'user') refuse(version, 'does not start with a user message');
      const nested = storedVersions(branch.versions, [...turns.slice(0, at), ...branchTurns], budget, version, report, at + 1);
      return { turns: branchTurns, ...(nested ? { versions: nested } : {}) };
    });
    versions[at] = { others, index: set.index as number };
  }
  return Object.keys(versions).length ? versions : undefined;
}

/**
 * A version 2 file's conversation, checked and rebuilt from its known fields: turns as the page keeps
 * them, answers with their steps, versions likewise. Title and dates are the caller's to fill in.
 *
 * @throws ConversationFileError naming the turn (or step) and the field that is wrong.
 *
 * @remarks Security: as {@link checkTurn}'s, and an answer's steps are rebuilt kind by kind from known fields.
 */
export function checkStoredConversation(
  raw: unknown,
  report: StoredImportReport = { hiddenResults: 0 },
): Omit<Conversation, 'title' | 'createdAt' | 'updatedAt'> & Partial<Conversation> {
  if (!isObject(raw)) refuse('The conversation', 'is not an object');
  if (!Array.isArray(raw.turns) || raw.turns.length === 0) refuse('The conversation', 'has no turns');
  if (raw.turns.length > IMPORT_LIMITS.turns) refuse('The conversation', `has more than ${IMPORT_LIMITS.turns} turns`);
  const turns = raw.turns.map((turn, i) => storedTurn(turn, i, report));
  if (new Set(turns.map((t) => t.id)).size !== turns.length) refuse('The conversation', 'has two turns with the same id');
  const versions = storedVersions(raw.versions, turns, { turns: IMPORT_LIMITS.turns - turns.length }, 'The conversation', report);
  const text = (v: unknown, max: number) => (typeof v === 'string' && v.length <= max ? v : undefined);
  const title = text(raw.title, IMPORT_LIMITS.shortChars);
  const createdAt = text(raw.createdAt, 40);
  const updatedAt = text(raw.updatedAt, 40);
  return {
    id: text(raw.id, IMPORT_LIMITS.shortChars) ?? '',
    turns,
    ...(versions ? { versions } : {}),
    ...(title ? { title: title.slice(0, IMPORT_LIMITS.titleChars) } : {}),
    ...(createdAt ? { createdAt } : {}),
    ...(updatedAt ? { updatedAt } : {}),
    ...importedInstructions(raw.instructions),
  };
}

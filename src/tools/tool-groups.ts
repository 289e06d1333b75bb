import { stemmer } from 'stemmer';
import { nameWords } from './tool-words.ts';
import { outside } from '../shared/outside-text.ts';

/** A kind of tool the chat model can be asked to pick: its name and its tools. */
export interface ToolGroup {
  name: string;
  tools: string[];
}

/** Verbs a tool name starts with that say what it does, not what it is about. */
const ACTION_WORDS = new Set(
  'get set list create delete remove update send add find search read write check convert turn start stop make open close cancel book order call play show lock unlock reply archive share compress move run fetch look lookup query new edit save load view mark change toggle enable disable compute calculate'.split(
    ' ',
  ),
);

/** A name's topic words, stemmed ("list_events" → "event"). */
function topicWords(name: string): string[] {
  return nameWords(name)
    .split(' ')
    .filter((w) => w.length > 1 && !ACTION_WORDS.has(w))
    .map((w) => stemmer(w));
}

/**
 * Groups tools by the group a `tools.js` declared, or else by the topic word of the name that the
 * most other names share (`create_event`, `list_events` and `cancel_event` form "event"); a tool
 * that shares none is its own group.
 */
export function toolGroups(tools: readonly { name: string; group?: string | undefined }[]): ToolGroup[] {
  const counts = new Map<string, number>();
  for (const tool of tools) for (const word of new Set(topicWords(tool.name))) counts.set(word, (counts.get(word) ?? 0) + 1);
  const groups = new Map<string, string[]>();
  for (const tool of tools) {
    const words = topicWords(tool.name);
    const shared = [...words].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0))[0];
    const name = tool.group?.trim() || (shared && (counts.get(shared) ?? 0) > 1 ? shared : (words[0] ?? nameWords(tool.name)));
    groups.set(name, [...(groups.get(name) ?? []), tool.name]);
  }
  return [...groups].map(([name, names]) => ({ name, tools: names }));
}

/** The answer that says no kind fits (small talk, or a request no tool serves). */
export const NO_GROUP = 'none';

/** The question the chat model answers to pick a group: each kind with a few of its tools, in their own words. */
export function groupQuestion(groups: readonly ToolGroup[]): string {
  const lines = groups.map((g) => `- ${outside(g.name)}: ${g.tools.slice(0, 6).map(nameWords).join(', ')}`);
  return `Which kind of tool would help with the user's message? Kinds:\n${lines.join('\n')}\nAnswer with the kind's name only, or ${NO_GROUP} if no kind fits.`;
}

/** The answers the group question allows: each group's name, and {@link NO_GROUP}. */
export function groupChoices(groups: readonly ToolGroup[]): string[] {
  return [...groups.map((g) => g.name), NO_GROUP];
}

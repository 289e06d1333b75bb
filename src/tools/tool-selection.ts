import type { RankedTool, ToolIndex } from './tool-index.ts';
import { DEFAULT_CONFIDENCE, nameWords } from './tool-words.ts';
import type { ToolRegistry } from './tool-registry.ts';
import type { ToolGroup } from './tool-groups.ts';

/** The tool a model calls to see more tools than the answer offered. */
export const FIND_TOOLS = 'find_tools';

/** When and how much to select. */
export interface ToolSelectionSettings {
  /** Above this many registered tools, each answer offers only the best matches (default 12). */
  threshold: number;
  /** How many best matches (default 5), besides tools named in the conversation and `alwaysOffer` ones. */
  topK: number;
  /** When neither ranking is sure, ask the chat model which group of tools fits (a few tokens). Default true. */
  askGroup?: boolean;
  /** Below both, a ranking is unsure: the best lexical score (BM25-style) and the best cosine of the semantic one. */
  confidence?: { lexical: number; semantic: number };
}

export const DEFAULT_TOOL_SELECTION: Readonly<ToolSelectionSettings> = Object.freeze({
  threshold: 12,
  topK: 5,
  askGroup: true,
  confidence: DEFAULT_CONFIDENCE,
});

/** Why a tool was offered. */
export type OfferReason = RankedTool['by'] | 'called' | 'named' | 'always' | 'finder' | 'group';

/** What the chat model chose when the rankings were unsure. */
export interface GroupChoice {
  /** The group, or `none`. */
  chosen: string;
  /** How many groups it chose among. */
  among: number;
  promptTokens: number;
  newTokens: number;
  ms: number;
}

/** The tools one answer offers, and why each. */
export interface ToolSelection {
  offered: string[];
  reasons: Record<string, OfferReason>;
  /** How sure the rankings were, and why the semantic one was not used (if it was not). */
  ranking: { lexicalTop: number; semanticTop?: number; semanticError?: string; confident: boolean };
  /** Set when the rankings were unsure and the chat model picked a group. */
  group?: GroupChoice;
}

/** A chosen group offers up to this many of its tools (groups are meant to be small: a kind of tool). */
const GROUP_LIMIT = 8;

/** Asks the chat model for one group (or `none`); see {@link selectTools}. */
export type GroupChooser = (groups: readonly ToolGroup[]) => Promise<Omit<GroupChoice, 'among'>>;

/** What the selection reads of the conversation: user words, and the calls already made. */
export interface SelectionMessage {
  readonly role: string;
  readonly content?: string | null;
  readonly tool_calls?: readonly { readonly function: { readonly name: string } }[];
}

/**
 * Picks the tools an answer offers: the index's best `topK` for the message (and the user's
 * message before it, which the answer may continue), every tool already called in the
 * conversation or named by the user (by its name or its name's words), the `alwaysOffer` ones,
 * and `find_tools` for the rest.
 */
export async function selectTools(
  index: ToolIndex,
  registry: ToolRegistry,
  prompt: string,
  history: readonly SelectionMessage[],
  settings: ToolSelectionSettings = DEFAULT_TOOL_SELECTION,
  choose?: { groups: readonly ToolGroup[]; chooser: GroupChooser },
): Promise<ToolSelection> {
  const reasons: Record<string, OfferReason> = {};
  const offer = (name: string, why: OfferReason) => {
    if (registry.has(name) && !(name in reasons)) reasons[name] = why;
  };
  for (const name of registry.names) if (registry.get(name)?.alwaysOffer) offer(name, 'always');
  for (const message of history) for (const call of message.tool_calls ?? []) offer(call.function.name, 'called');
  const userText = [...history.filter((m) => m.role === 'user').map((m) => m.content ?? ''), prompt].join('\n').toLowerCase();
  for (const name of registry.names) if (userText.includes(name.toLowerCase()) || userText.includes(nameWords(name))) offer(name, 'named');
  const previous = history.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const confidence = settings.confidence ?? DEFAULT_CONFIDENCE;
  const ranking = await index.rank(previous ? `${prompt}\n${previous}` : prompt, settings.topK, confidence.lexical);
  const confident = ranking.lexicalTop >= confidence.lexical || (ranking.semanticTop ?? -1) >= confidence.semantic;
  let group: GroupChoice | undefined;
  if (!confident && choose && settings.askGroup !== false && choose.groups.length > 1) {
    const picked = await choose.chooser(choose.groups);
    group = { ...picked, among: choose.groups.length };
    const tools = choose.groups.find((g) => g.name === picked.chosen)?.tools ?? [];
    // The group's tools in the ranking's order first (the ranking still knows something), then the rest.
    const order = new Map(ranking.hits.map((h, i) => [h.name, i]));
    const sorted = [...tools].sort((a, b) => (order.get(a) ?? 99) - (order.get(b) ?? 99));
    for (const name of sorted.slice(0, Math.max(settings.topK, GROUP_LIMIT))) offer(name, 'group');
  }
  for (const hit of ranking.hits) offer(hit.name, hit.by);
  reasons[FIND_TOOLS] = 'finder';
  const { hits: _hits, ...scores } = ranking;
  return { offered: Object.keys(reasons), reasons, ranking: { ...scores, confident }, ...(group ? { group } : {}) };
}

/**
 * Registers `find_tools(query)` on `registry`: its result lists up to eight matching tools not yet
 * offered, one line each, and `offered` (read as the effect of the call) makes them callable from
 * the next round.
 */
export function addFindTools(registry: ToolRegistry, index: ToolIndex, isOffered: (name: string) => boolean): { lastFound: () => string[] } {
  let found: string[] = [];
  registry.tool(
    FIND_TOOLS,
    'Find more tools than the ones offered: describe what you need, and the matching tools become available',
    { query: 'string' },
    async ({ query }: { query: string }) => {
      const hits = (await index.search(query, 12)).filter((h) => h.name !== FIND_TOOLS && !isOffered(h.name)).slice(0, 8);
      found = hits.map((h) => h.name);
      if (!hits.length) return 'No other tool matches. Answer with the tools you have, or say what is missing.';
      return hits.map((h) => `${h.name}: ${registry.get(h.name)?.description ?? ''}`).join('\n');
    },
    { readOnly: true },
  );
  return { lastFound: () => found };
}

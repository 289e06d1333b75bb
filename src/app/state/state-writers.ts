import type { AppState } from './app-state.ts';

/**
 * Who writes which part of the page's state: each key has exactly one writer, a slice or the store itself
 * for its own parts (settings, tools, the Web switch, the servers' list, the page's notices). A slice's host
 * takes only its own keys (`SliceChange`), so a second writer does not compile; the test beside this file
 * checks that no key has two.
 */
export const STATE_WRITERS = {
  answers: ['busy', 'answeringIn', 'queued', 'returnedText', 'stopping', 'approval'],
  model: ['model', 'runtime'],
  attachments: ['attachments', 'attachError', 'attachmentsReading'],
  conversations: ['conversation', 'conversations', 'conversationSearch', 'importError', 'listNote', 'undoDelete'],
  mcp: ['mcpRequest', 'mcpExtras'],
  store: ['settings', 'settingsUndo', 'tools', 'web', 'mcp', 'deviceModels', 'notice', 'updateReady'],
} as const satisfies Record<string, readonly (keyof AppState)[]>;

/** A part of the page that writes state. */
type StateWriter = keyof typeof STATE_WRITERS;

/** The keys one writer owns. */
type KeysOf<W extends StateWriter> = (typeof STATE_WRITERS)[W][number];

/** A change a writer may make: its own keys of the page's state, nothing else. */
export type SliceChange<W extends StateWriter> = Partial<Pick<AppState, KeysOf<W>>>;

/** Every key of the state has a writer: a key added to `AppState` and to no row here does not compile. */
type Unowned = Exclude<keyof AppState, KeysOf<StateWriter>>;
export const EVERY_KEY_OWNED: [Unowned] extends [never] ? true : Unowned = true;

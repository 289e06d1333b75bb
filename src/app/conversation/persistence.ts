import type { ToolVerdict, VerdictStore } from '../../internal.ts';
import { upgradeSettings, type Conversation, type ConversationSummary, type Settings } from '../state/app-state.ts';
import type { LegacyConversation } from './conversation-upgrade.ts';
import type { ModelUse } from '../state/device-models.ts';

/** Where the page keeps what it remembers between visits. */
export interface Persistence {
  loadSettings(): Promise<Settings>;
  /** Writes the settings that changed over what is stored (another tab's changes to the others stay). */
  updateSettings(change: Partial<Settings>): Promise<void>;
  loadWebEnabled(): Promise<boolean>;
  saveWebEnabled(enabled: boolean): Promise<void>;
  /** The last model that loaded, as `?model=` would name it; a visit without `?model=` opens it. */
  loadLastModel(): Promise<string | undefined>;
  saveLastModel(address: string | undefined): Promise<void>;
  /** The model that failed to load last, and why: a reload does not try it again by itself. */
  loadFailedModel(): Promise<FailedModel | undefined>;
  saveFailedModel(failed: FailedModel | undefined): Promise<void>;
  /** Models (as `?model=` names them) whose every quantization was tried: "Try other quantizations" is not offered again. */
  loadSearchedModels(): Promise<string[]>;
  saveSearchedModel(address: string): Promise<void>;
  /** When each model last loaded here and its verdict, by its address, for "Models on this device". */
  loadModelUses(): Promise<Record<string, ModelUse>>;
  saveModelUse(address: string, use: ModelUse | undefined): Promise<void>;
  /** Whether the page already asked the browser to keep its storage (asked once). */
  loadPersistAsked(): Promise<boolean>;
  savePersistAsked(): Promise<void>;
  listConversations(): Promise<ConversationSummary[]>;
  loadConversation(id: string): Promise<Conversation | undefined>;
  /**
   * Saves the conversation and moves it to the top of the list. With `fields`, only those are written
   * over what is stored (a field absent from `conversation` is removed), so another tab's change to
   * the others is kept; a conversation not stored yet is written whole.
   */
  saveConversation(conversation: Conversation, fields?: readonly (keyof Conversation)[]): Promise<ConversationSummary[]>;
  deleteConversation(id: string): Promise<ConversationSummary[]>;
  /** The MCP servers the user added in the tools panel. */
  loadMcpServers(): Promise<SavedMcpServer[]>;
  saveMcpServers(servers: readonly SavedMcpServer[]): Promise<void>;
  /** Self-check verdicts, in the same place the library keeps them, so either can read the other's. */
  verdicts: VerdictStore;
}

/** An MCP server the user added: its address, and whether its tools run without asking. */
export interface SavedMcpServer {
  url: string;
  trust?: boolean;
}

/** A model that could not be loaded: its address as `?model=` names it, and the message shown. */
interface FailedModel {
  address: string;
  error: string;
}

const KEYS = {
  settings: 'settings',
  web: 'web-enabled',
  lastModel: 'last-model',
  failedModel: 'failed-model',
  searchedModels: 'searched-models',
  modelUses: 'model-uses',
  persistAsked: 'persist-asked',
  mcpServers: 'mcp-servers',
  index: 'conversations',
  conversation: (id: string) => `conversation:${id}`,
};

/**
 * The page's storage in IndexedDB (idb-keyval). Conversations are stored one per key with a small
 * index beside them, so saving the answer being streamed rewrites one conversation, not all.
 * Writes are queued, so a quick save-after-save can never leave the index behind its conversation.
 */
export function indexedDbPersistence(database = 'nexus-chat'): Persistence {
  // Loaded like the library loads it (lazily), so the bundler keeps a single idb-keyval chunk.
  const idb = import('idb-keyval');
  const store = idb.then(({ createStore }) => createStore(database, 'app'));
  const get = async <T>(key: string) => (await idb).get<T>(key, await store);
  // One read-write transaction: tabs writing the same key at once are serialised by IndexedDB.
  const update = async <T>(key: string, change: (old: T | undefined) => T) => (await idb).update<T>(key, change, await store);
  const set = async (key: string, value: unknown) => (await idb).set(key, value, await store);
  const del = async (key: string) => (await idb).del(key, await store);
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const readIndex = async () => (await get<ConversationSummary[]>(KEYS.index)) ?? [];

  return {
    async loadSettings() {
      return upgradeSettings(await get<Partial<Settings>>(KEYS.settings));
    },
    updateSettings: (change) => serial(() => update<Partial<Settings>>(KEYS.settings, (stored) => ({ ...stored, ...change }))),
    loadWebEnabled: async () => (await get<boolean>(KEYS.web)) ?? false,
    saveWebEnabled: (enabled) => serial(() => set(KEYS.web, enabled)),
    loadLastModel: async () => (await get<string>(KEYS.lastModel)) ?? undefined,
    saveLastModel: (address) => serial(() => (address ? set(KEYS.lastModel, address) : del(KEYS.lastModel))),
    loadFailedModel: async () => (await get<FailedModel>(KEYS.failedModel)) ?? undefined,
    saveFailedModel: (failed) => serial(() => (failed ? set(KEYS.failedModel, failed) : del(KEYS.failedModel))),
    loadSearchedModels: async () => (await get<string[]>(KEYS.searchedModels)) ?? [],
    loadModelUses: async () => (await get<Record<string, ModelUse>>(KEYS.modelUses)) ?? {},
    saveModelUse: (address, use) =>
      serial(() =>
        update<Record<string, ModelUse>>(KEYS.modelUses, (stored = {}) => {
          const { [address]: _old, ...rest } = stored;
          return use ? { ...rest, [address]: use } : rest;
        }),
      ),
    loadPersistAsked: async () => (await get<boolean>(KEYS.persistAsked)) === true,
    savePersistAsked: () => serial(() => set(KEYS.persistAsked, true)),
    saveSearchedModel: (address) => serial(() => update<string[]>(KEYS.searchedModels, (stored = []) => [...new Set([...stored, address])].slice(-50))),
    loadMcpServers: async () => (await get<SavedMcpServer[]>(KEYS.mcpServers)) ?? [],
    saveMcpServers: (servers) => serial(() => set(KEYS.mcpServers, [...servers])),
    listConversations: readIndex,
    loadConversation: async (id) => upgraded(await get<LegacyConversation>(KEYS.conversation(id))),
    saveConversation: (conversation, fields) =>
      serial(async () => {
        let saved = conversation;
        await update<Conversation>(KEYS.conversation(conversation.id), (stored) => (saved = mergeConversation(stored, conversation, fields)));
        const summary: ConversationSummary = { id: saved.id, title: saved.title, updatedAt: saved.updatedAt };
        let index: ConversationSummary[] = [];
        await update<ConversationSummary[]>(KEYS.index, (stored = []) => (index = [summary, ...stored.filter((c) => c.id !== saved.id)]));
        return index;
      }),
    deleteConversation: (id) =>
      serial(async () => {
        await del(KEYS.conversation(id));
        let index: ConversationSummary[] = [];
        await update<ConversationSummary[]>(KEYS.index, (stored = []) => (index = stored.filter((c) => c.id !== id)));
        return index;
      }),
    // The library's own verdict store uses idb-keyval's default database with these same keys.
    verdicts: {
      get: async (key) => (await idb).get<ToolVerdict>(key),
      set: async (key, verdict) => (await idb).set(key, verdict),
    },
  };
}

/**
 * Storage that forgets on reload: for tests, and when IndexedDB is unavailable (private windows).
 * @param data - the stored values; two persistences given one map are two tabs of one browser.
 */
export function memoryPersistence(data = new Map<string, unknown>()): Persistence {
  const index = () => (data.get(KEYS.index) as ConversationSummary[] | undefined) ?? [];
  return {
    loadSettings: async () => upgradeSettings(data.get(KEYS.settings) as Partial<Settings> | undefined),
    updateSettings: async (change) => void data.set(KEYS.settings, structuredClone({ ...(data.get(KEYS.settings) as object | undefined), ...change })),
    loadWebEnabled: async () => (data.get(KEYS.web) as boolean | undefined) ?? false,
    saveWebEnabled: async (enabled) => void data.set(KEYS.web, enabled),
    loadLastModel: async () => data.get(KEYS.lastModel) as string | undefined,
    saveLastModel: async (address) => void (address ? data.set(KEYS.lastModel, address) : data.delete(KEYS.lastModel)),
    loadFailedModel: async () => structuredClone(data.get(KEYS.failedModel) as FailedModel | undefined),
    saveFailedModel: async (failed) => void (failed ? data.set(KEYS.failedModel, structuredClone(failed)) : data.delete(KEYS.failedModel)),
    loadSearchedModels: async () => [...((data.get(KEYS.searchedModels) as string[] | undefined) ?? [])],
    loadModelUses: async () => structuredClone((data.get(KEYS.modelUses) as Record<string, ModelUse> | undefined) ?? {}),
    saveModelUse: async (address, use) => {
      const { [address]: _old, ...rest } = (data.get(KEYS.modelUses) as Record<string, ModelUse> | undefined) ?? {};
      data.set(KEYS.modelUses, use ? { ...rest, [address]: structuredClone(use) } : rest);
    },
    loadPersistAsked: async () => data.get(KEYS.persistAsked) === true,
    savePersistAsked: async () => void data.set(KEYS.persistAsked, true),
    saveSearchedModel: async (address) =>
      void data.set(KEYS.searchedModels, [...new Set([...((data.get(KEYS.searchedModels) as string[] | undefined) ?? []), address])]),
    loadMcpServers: async () => structuredClone((data.get(KEYS.mcpServers) as SavedMcpServer[] | undefined) ?? []),
    saveMcpServers: async (servers) => void data.set(KEYS.mcpServers, structuredClone([...servers])),
    listConversations: async () => index(),
    loadConversation: async (id) => upgraded(structuredClone(data.get(KEYS.conversation(id)) as LegacyConversation | undefined)),
    saveConversation: async (conversation, fields) => {
      const saved = mergeConversation(data.get(KEYS.conversation(conversation.id)) as Conversation | undefined, conversation, fields);
      data.set(KEYS.conversation(conversation.id), structuredClone(saved));
      const next = [{ id: saved.id, title: saved.title, updatedAt: saved.updatedAt }, ...index().filter((c) => c.id !== saved.id)];
      data.set(KEYS.index, next);
      return next;
    },
    deleteConversation: async (id) => {
      data.delete(KEYS.conversation(id));
      const next = index().filter((c) => c.id !== id);
      data.set(KEYS.index, next);
      return next;
    },
    verdicts: {
      get: async (key) => data.get(`verdict:${key}`) as ToolVerdict | undefined,
      set: async (key, verdict) => void data.set(`verdict:${key}`, verdict),
    },
  };
}

/**
 * A stored conversation as the page keeps it today: one saved by an earlier page (a history beside the
 * turns, an answer without steps) is converted as it is read, by code loaded only then.
 */
async function upgraded(stored: LegacyConversation | undefined): Promise<Conversation | undefined> {
  if (!stored) return undefined;
  const current =
    !('history' in stored) &&
    !('memory' in stored) &&
    !stored.versions &&
    stored.turns.every((turn) => (turn.role === 'user' ? !('historyIndex' in turn) : turn.steps));
  if (current) return stored as Conversation;
  const { upgradeConversation } = await import('./conversation-upgrade.ts');
  return upgradeConversation(stored);
}

/**
 * What is stored after a save of `fields` of `conversation` over `stored`: those fields from the
 * save (removed where the save lacks them), the rest as stored; a conversation not stored yet, or a
 * save without fields, is the save itself.
 */
export function mergeConversation(stored: Conversation | undefined, conversation: Conversation, fields?: readonly (keyof Conversation)[]): Conversation {
  if (!stored || !fields) return conversation;
  const merged: Record<string, unknown> = { ...stored };
  // What earlier pages kept beside the turns (a history, a memory view) is derived from the turns saved now.
  if (fields.includes('turns')) {
    delete merged.history;
    delete merged.memory;
  }
  for (const field of fields) {
    if (conversation[field] === undefined) delete merged[field];
    else merged[field] = conversation[field];
  }
  return merged as unknown as Conversation;
}

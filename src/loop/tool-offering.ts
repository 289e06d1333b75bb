import type { EmbeddingModel, ToolSearchStatus } from '../engine/embedding-model.ts';
import { errorMessage } from '../shared/errors.ts';
import type { ToolGroup } from '../tools/tool-groups.ts';
import type { Embedder, ToolIndex } from '../tools/tool-index.ts';
import { ToolRegistry, type RegisteredTool } from '../tools/tool-registry.ts';
import { addFindTools, FIND_TOOLS, selectTools, type GroupChooser, type ToolSelection } from '../tools/tool-selection.ts';
import type { SemanticEncoder, ToolVectorStore } from '../tools/tool-vectors.ts';
import type { ChatMessage } from '../engine/engine.ts';
import type { AnswerRunner } from './answer-runner.ts';
import type { ToolEffects } from './toolbox.ts';
import type { ChatOptions, ToolOfferingSettings } from './types.ts';

export type { ToolOfferingSettings } from './types.ts';

/** A tool set's index, built once per set of tools (and semantic setting), with what is derived from the same tools. */
interface IndexedTools {
  key: string;
  index: ToolIndex;
  /** The tools it was built from (the groups are derived from them). */
  tools: readonly RegisteredTool[];
  encoder?: SemanticEncoder;
  /** How groups are derived and asked about: loaded with the index, as only a ranked offer needs them. */
  grouping: typeof import('../tools/tool-groups.ts');
  /** The tool groups, derived on the first unsure ranking. */
  groups?: ToolGroup[];
}

/** What {@link ToolOffering} is built from. */
export interface ToolOfferingParts {
  /** The model host: `embed` runs the semantic ranking's model beside the chat model, `choose` asks the chat model for a group. */
  runner: Pick<AnswerRunner, 'embed' | 'choose'>;
  /** An embedder that replaces the model host's (`custom` in the status). */
  embedder?: Embedder | undefined;
  /** Where tool vectors are kept; `null` keeps none; default IndexedDB where there is one, else memory. */
  vectorStore?: ToolVectorStore | null | undefined;
  /** Whether IndexedDB may hold the vectors (not in Node, where a test's fake one must not). */
  persistentVectors: boolean;
  /** The search status changed (the chat's `toolSearch` event). */
  onStatus(status: ToolSearchStatus): void;
  /** How the status names an embedding model (its source, as messages write it). */
  describeModel(model: EmbeddingModel): string;
  /**
   * The engine's rules for an embedding model setting, handed in so the loop depends on the engine's
   * interface only: `check` refuses a setting that is not a model (naming the valid shape), `key` says
   * which model a setting names (the index is rebuilt when it changes).
   */
  embeddingModels: { check(value: unknown): asserts value is EmbeddingModel; key(model: EmbeddingModel): string };
}

/** The tools one answer offers, and how calls to `find_tools` widen them. */
export interface OfferedTools {
  options: ChatOptions;
  registry: ToolRegistry;
  effects: Record<string, () => ToolEffects | undefined>;
  selection?: ToolSelection;
}

/**
 * Tool offering for large tool sets, one per chat: which tools each answer offers, from an index
 * of the chat's tools (words, and meaning through an embedding model run beside the chat model),
 * kept while the tools and the semantic setting stay the same. A side conversation's toolkit gets an
 * index of its own and reports to nobody.
 */
export class ToolOffering {
  /** The hub the chat model came from; the embedding model comes from the same one. */
  hubUrl: string | undefined;
  private chatIndex: IndexedTools | undefined;
  /** The index of the last side conversation's toolkit: kept apart, so it never replaces the chat's. */
  private sideIndex: IndexedTools | undefined;
  private selection: ToolSelection | undefined;
  private searchStatus: ToolSearchStatus = { state: 'off', vectors: { computed: 0, reused: 0 } };
  private vectorStoreOpened: Promise<ToolVectorStore | undefined> | undefined;

  constructor(private readonly parts: ToolOfferingParts) {}

  /** Where the semantic tool search stands. */
  get status(): ToolSearchStatus {
    return this.searchStatus;
  }

  /** The tools the last answer offered and why each (undefined when it offered them all). */
  get lastSelection(): ToolSelection | undefined {
    return this.selection;
  }

  /** The sentence encoder of the tool index, once its model is ready (undefined while off, loading or failed). */
  get encoder(): SemanticEncoder | undefined {
    return this.searchStatus.state === 'ready' ? this.chatIndex?.encoder : undefined;
  }

  /** Builds the index of `registry` now (loading the model and embedding the tools), not at the first answer. */
  async prepare(registry: ToolRegistry, settings: ToolOfferingSettings): Promise<ToolSearchStatus> {
    if (settings.threshold <= 0 || registry.size <= settings.threshold) return this.searchStatus;
    const { index } = await this.indexFor(registry, settings);
    // One query loads the model and embeds the tools; a failure is already in the status.
    await index.rank('tools', 1);
    this.refreshVectorCounts();
    return this.searchStatus;
  }

  /**
   * Many tools (more than `settings.threshold`): the answer offers only the best matches for the
   * message, the tools already called or named, the `alwaysOffer` ones, and `find_tools` for the
   * rest; a call to another registered tool is still accepted. Below the threshold, with an
   * explicit `tools` list or a forced `{ name }`, nothing changes.
   */
  async select(request: {
    prompt: string;
    options: ChatOptions;
    registry: ToolRegistry;
    history: readonly ChatMessage[];
    settings: ToolOfferingSettings;
  }): Promise<OfferedTools> {
    const { prompt, options, registry, settings } = request;
    const choice = options.toolChoice ?? 'auto';
    if (settings.threshold <= 0 || registry.size <= settings.threshold || options.tools || choice === 'none' || typeof choice === 'object') {
      // This answer offers every tool: the last selection no longer describes what was offered.
      if (!options.isolated) this.selection = undefined;
      return { options, registry, effects: {} };
    }
    const side = Boolean(options.isolated);
    const indexed = await this.indexFor(registry, settings, side);
    const { index } = indexed;
    const history = side ? [] : request.history;
    const selection = await selectTools(index, registry, prompt, history, settings, this.groupChooser(indexed, prompt, options.signal));
    // A side conversation talks to nobody: no search status (its group choice is in its own steps).
    if (!side) this.refreshVectorCounts();
    const offeredNow = new Set(selection.offered);
    const withFinder = new ToolRegistry();
    withFinder.restore(registry.snapshot());
    const finder = addFindTools(withFinder, index, (name) => offeredNow.has(name));
    const effects: Record<string, () => ToolEffects | undefined> = {
      [FIND_TOOLS]: () => {
        const found = finder.lastFound();
        for (const name of found) offeredNow.add(name);
        return found.length ? { offer: found } : undefined;
      },
    };
    if (!side) this.selection = selection;
    return { options: { ...options, tools: selection.offered }, registry: withFinder, effects, selection };
  }

  /**
   * The tool index for a registry's current tools and the semantic setting, rebuilt only when
   * either changes. The semantic ranking is an injected embedder, or `settings.semantic` run beside
   * the chat model; tool vectors are kept in the vector store.
   */
  private async indexFor(registry: ToolRegistry, settings: ToolOfferingSettings, side = false): Promise<IndexedTools> {
    const { embedder: custom, runner } = this.parts;
    const model = custom ? undefined : settings.semantic || undefined;
    if (model !== undefined) this.parts.embeddingModels.check(model);
    const semanticKey = custom ? 'custom' : model && runner.embed ? this.parts.embeddingModels.key(model) : '';
    const tools = registry.snapshot().tools;
    // Everything the index reads (names, descriptions, parameters) and the groups derived with it.
    const key = `${semanticKey}\u0002${JSON.stringify(tools.map((t) => [t.name, t.description, t.parameters, t.group ?? '']))}`;
    if (this.chatIndex?.key === key) return this.chatIndex;
    if (side && this.sideIndex?.key === key) return this.sideIndex;
    // The chat's search status follows the chat's own index only.
    const setStatus = side ? () => undefined : (change: Partial<ToolSearchStatus>) => this.setStatus(change);
    const state = () => (side ? undefined : this.searchStatus.state);
    let encoder: SemanticEncoder | undefined;
    // The vector cache loads with the index, with the first answer that has more tools than it offers at once.
    const { cachedEncoder } = await import('../tools/tool-vectors.ts');
    if (custom) {
      encoder = cachedEncoder(watched(custom, setStatus), { store: this.parts.vectorStore ?? undefined, modelKey: 'custom' });
      setStatus({ state: 'ready', model: 'custom' });
    } else if (model && runner.embed) {
      const embed = runner.embed.bind(runner);
      const request = { model, ...(this.hubUrl ? { hubUrl: this.hubUrl } : {}) };
      const embedder: Embedder = async (texts) => {
        if (state() !== 'ready') setStatus({ state: 'loading' });
        const reply = await embed({ ...request, texts: [...texts] }, (event) => {
          if (event.status === 'progress' && typeof event.loaded === 'number' && typeof event.total === 'number') {
            setStatus({ state: 'loading', progress: { loaded: event.loaded, total: event.total } });
          }
        });
        if (state() !== 'ready') setStatus({ state: 'ready', info: reply.info });
        return reply.vectors;
      };
      const store = await this.openVectorStore();
      encoder = cachedEncoder(watched(embedder, setStatus), {
        store,
        modelKey: semanticKey,
        queryPrefix: model.queryPrefix,
        documentPrefix: model.documentPrefix,
      });
      setStatus({ state: 'idle', model: this.parts.describeModel(model) });
    } else setStatus({ state: 'off' });
    // The index (and its search engine) loads with the first answer that has more tools than it offers at once.
    const [{ ToolIndex: Index }, grouping] = await Promise.all([import('../tools/tool-index.ts'), import('../tools/tool-groups.ts')]);
    const indexed: IndexedTools = { key, index: new Index(registry.schemas, encoder), tools, grouping, ...(encoder ? { encoder } : {}) };
    if (side) this.sideIndex = indexed;
    else this.chatIndex = indexed;
    return indexed;
  }

  /** The store tool vectors are kept in: the given one, IndexedDB in a page, memory in Node. */
  private openVectorStore(): Promise<ToolVectorStore | undefined> {
    const { vectorStore, persistentVectors } = this.parts;
    if (vectorStore === null) return Promise.resolve(undefined);
    if (vectorStore) return Promise.resolve(vectorStore);
    this.vectorStoreOpened ??= import('../tools/tool-vectors.ts').then(({ indexedDbToolVectorStore, memoryToolVectorStore }) =>
      (!persistentVectors || typeof indexedDB === 'undefined' ? Promise.resolve(memoryToolVectorStore()) : indexedDbToolVectorStore()).catch(() =>
        memoryToolVectorStore(),
      ),
    );
    return this.vectorStoreOpened;
  }

  /**
   * Asks the chat model which group of tools fits, when the rankings are unsure: a constrained
   * choice among the groups (declared in `tools.js`, or derived from the names, once per tool set) and `none`.
   */
  private groupChooser(indexed: IndexedTools, prompt: string, signal?: AbortSignal): { groups: readonly ToolGroup[]; chooser: GroupChooser } | undefined {
    const choose = this.parts.runner.choose?.bind(this.parts.runner);
    if (!choose) return undefined;
    const { toolGroups, groupQuestion, groupChoices } = indexed.grouping;
    indexed.groups ??= toolGroups(indexed.tools.filter((t) => t.name !== FIND_TOOLS));
    return {
      groups: indexed.groups,
      chooser: async (given) => {
        const result = await choose(
          {
            messages: [
              { role: 'system', content: groupQuestion(given) },
              { role: 'user', content: prompt },
            ],
            choices: groupChoices(given),
          },
          signal,
        );
        return { chosen: result.choice, promptTokens: result.promptTokens, newTokens: result.newTokens, ms: result.ms };
      },
    };
  }

  private setStatus(change: Partial<ToolSearchStatus>): void {
    const next: ToolSearchStatus = { ...this.searchStatus, ...change };
    if (change.state && change.state !== 'loading') delete next.progress;
    if (change.state && change.state !== 'failed') delete next.error;
    this.searchStatus = next;
    this.parts.onStatus(next);
  }

  private refreshVectorCounts(): void {
    const counts = this.chatIndex?.encoder?.counts;
    if (counts && (counts.computed !== this.searchStatus.vectors.computed || counts.reused !== this.searchStatus.vectors.reused)) {
      this.setStatus({ vectors: { ...counts } });
    }
  }
}

/** An embedder whose failure shows in the tool-search status (the index then ranks by words). */
function watched(embed: Embedder, setStatus: (change: Partial<ToolSearchStatus>) => void): Embedder {
  return async (texts) => {
    try {
      return await embed(texts);
    } catch (error) {
      setStatus({ state: 'failed', error: errorMessage(error) });
      throw error;
    }
  };
}

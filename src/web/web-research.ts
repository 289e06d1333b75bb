import type { ChatMessage } from '../shared/chat-messages.ts';
import { ToolRegistry, type ToolRunResult } from '../tools/tool-registry.ts';
import { ProxyClient, type Source } from './proxy-client.ts';
import { READ_PAGE, WEB_SEARCH, linkInPlay, registerWebTools, webToolEffects, type WebActivity, type WebToolState } from './web-tools.ts';

/** Whether web research can run. */
export interface WebStatus {
  available: boolean;
  backend?: string;
  /** One sentence for the page's Web switch. */
  detail: string;
}

/** What a web tool's outcome does to the rest of the answer. */
export interface WebToolEffects {
  withdraw?: string[];
  offer?: string[];
  endToolRounds?: boolean;
}

/** The answer options research sets; a chat's own options type (`ChatOptions`) has these and more. */
export interface ResearchAnswerOptions {
  toolChoice?: 'auto' | 'required' | 'none' | { name: string };
  maxRounds?: number;
  tools?: string[];
  instructions?: string;
  signal?: AbortSignal;
  answerNow?: () => string | Promise<string>;
  /** The conversation before the question (`ChatOptions.messages`): a link the user gave in an earlier message may be read. */
  messages?: readonly ChatMessage[];
  toolkit?: { tools: ToolRegistry; effects?: Readonly<Record<string, (outcome: ToolRunResult) => WebToolEffects | undefined>> };
}

/**
 * What research needs of a chat (`NexusChat` is one): an answer that takes a per-answer toolkit, so
 * the chat's own tools are never swapped out.
 */
export interface ResearchChat<O extends ResearchAnswerOptions, A extends { text: string }> {
  /** The chat's own tools: they stay on offer beside the web tools (a research question may need a calculator too). */
  readonly toolSchemas?: readonly { function: { name: string } }[];
  chat(prompt: string, options: O): Promise<A>;
}

/** Options of {@link WebResearch.ask}: the chat's own answer options, plus the activity feed. */
export type ResearchOptions<O extends ResearchAnswerOptions = ResearchAnswerOptions> = Omit<O, 'toolkit'> & {
  /** Each search and page read, as it happens. */
  onActivity?: (activity: WebActivity) => void;
};

/** Tool rounds in research mode: a long hunt needs more than the default four. */
export const RESEARCH_MAX_ROUNDS = 8;

/**
 * Research mode (the page's Web switch): answers with `web_search` and `read_page` through the
 * companion proxy. The first round must call a tool, a plan-first line leads the system prompt,
 * and before the answer rounds the model gets the sources with the numbers to cite. When the proxy
 * cannot be reached the model is told it cannot browse, rather than failing silently.
 */
export class WebResearch<O extends ResearchAnswerOptions = ResearchAnswerOptions, A extends { text: string } = { text: string }> {
  private readonly client: ProxyClient;
  private readonly online: () => boolean;

  /**
   * @param chat - the chat that answers.
   * @param options - where the proxy is (default `/api` on this origin), the `fetch` to reach it, and
   * whether this device is online (default `navigator.onLine`, true where there is none).
   */
  constructor(
    private readonly chat: ResearchChat<O, A>,
    options: { baseUrl?: string; fetch?: typeof fetch; online?: () => boolean } = {},
  ) {
    this.client = new ProxyClient(options.baseUrl ?? '/api', options.fetch);
    this.online = options.online ?? (() => (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine !== false);
  }

  /** Asks the proxy whether search works; never throws. */
  async status(signal?: AbortSignal): Promise<WebStatus> {
    try {
      const health = await this.client.health(signal, { search: true });
      if (!health.ok)
        return {
          available: false,
          detail: 'Web search is not working right now: the server that runs it reported a problem. Try again later; answers use the model alone until then.',
        };
      const backend = health.backend;
      if (health.search && !health.search.ok)
        return {
          available: false,
          ...(backend ? { backend } : {}),
          detail: `Web search is not working right now: ${health.search.reason ?? 'the search engine did not answer'}. Try the switch again later; answers use the model alone until then.`,
        };
      return {
        available: true,
        ...(backend ? { backend } : {}),
        detail:
          backend === 'wikipedia'
            ? 'Search covers Wikipedia only: this server has no general web search set up.'
            : `Searching the web${backend ? ` with ${backend}` : ''}.`,
      };
    } catch (error) {
      // Offline, the server is not the problem: nothing to start, only a connection to wait for.
      if (!this.online()) {
        return { available: false, detail: "You're offline: web search needs a connection. Answers use the model alone until you're back online." };
      }
      const why = error instanceof Error ? error.message : String(error);
      return {
        available: false,
        detail: `Web search is not available: the server that runs it did not answer (${why}). It comes with npm start; answers use the model alone until it is back.`,
      };
    }
  }

  /** Answers `prompt` with web research; resolves with the answer and its numbered sources. */
  async ask(prompt: string, options: ResearchOptions<O> = {} as ResearchOptions<O>): Promise<A & { sources: Source[] }> {
    const { onActivity, ...rest } = options;
    const chatOptions = rest as unknown as O;
    // The research prompts load with the first question asked with the web on, not with the page.
    const [status, { CANNOT_BROWSE_INSTRUCTIONS, RESEARCH_INSTRUCTIONS, researchAnswerNow }] = await Promise.all([
      this.status(options.signal),
      import('./research-prompts.ts'),
    ]);
    if (!status.available) {
      const answer = await this.chat.chat(prompt, {
        ...chatOptions,
        toolChoice: 'none',
        instructions: [CANNOT_BROWSE_INSTRUCTIONS, chatOptions.instructions].filter(Boolean).join('\n\n'),
      } as O);
      return { ...answer, sources: [] };
    }

    const state: WebToolState = {
      answer: await this.client.startAnswer(prompt, options.signal),
      last: new Map(),
      sources: new Map(),
      ...(onActivity ? { onActivity } : {}),
    };
    const userMessages = [...(chatOptions.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content), prompt];
    // The web tools are this answer's toolkit: the chat's own registry is never touched, so a
    // tools.js reload while the research runs is kept.
    const tools = new ToolRegistry();
    registerWebTools(tools, this.client, state);
    const own = (this.chat.toolSchemas ?? []).map((schema) => schema.function.name).filter((name) => name !== WEB_SEARCH && name !== READ_PAGE);
    const answer = await this.chat.chat(prompt, {
      maxRounds: RESEARCH_MAX_ROUNDS,
      toolChoice: 'required',
      ...chatOptions,
      tools: [...(linkInPlay(userMessages) ? [WEB_SEARCH, READ_PAGE] : [WEB_SEARCH]), ...own],
      instructions: [RESEARCH_INSTRUCTIONS, chatOptions.instructions].filter(Boolean).join('\n\n'),
      // The sources the answer's calls brought, numbered as the proxy numbered them: no request more.
      answerNow: () => researchAnswerNow([...state.sources.values()].sort((a, b) => a.n - b.n)),
      toolkit: { tools, effects: webToolEffects(state), withChatTools: true },
    } as O);
    // The sources its calls brought (each call's details keep its own: the page reads them from the steps).
    return { ...answer, sources: [...state.sources.values()].sort((a, b) => a.n - b.n) };
  }
}

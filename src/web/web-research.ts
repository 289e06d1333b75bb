import type { ChatAnswer, ChatOptions } from '../loop/types.ts';
import type { NexusChat } from '../nexus.ts';
import { ProxyClient, type Source } from './proxy-client.ts';
import { CANNOT_BROWSE_INSTRUCTIONS, RESEARCH_INSTRUCTIONS, researchAnswerNow } from './research-prompts.ts';
import { READ_PAGE, WEB_SEARCH, linkInPlay, registerWebTools, webToolEffects, type WebActivity, type WebToolState } from './web-tools.ts';

/** Whether web research can run. */
export interface WebStatus {
  available: boolean;
  backend?: string;
  /** One sentence for the page's Web switch. */
  detail: string;
}

/** Options of {@link WebResearch.ask}. */
export interface ResearchOptions extends ChatOptions {
  /** Each search and page read, as it happens. */
  onActivity?: (activity: WebActivity) => void;
}

/** Tool rounds in research mode: a long hunt needs more than the default four. */
export const RESEARCH_MAX_ROUNDS = 8;

/**
 * Research mode (the page's Web switch): answers with `web_search` and `read_page` through the
 * companion proxy. The first round must call a tool, a plan-first line leads the system prompt,
 * and before the answer rounds the model gets the sources with the numbers to cite. When the proxy
 * cannot be reached the model is told it cannot browse, rather than failing silently.
 */
export class WebResearch {
  private readonly client: ProxyClient;

  constructor(
    private readonly chat: NexusChat,
    options: { baseUrl?: string; fetch?: typeof fetch } = {},
  ) {
    this.client = new ProxyClient(options.baseUrl ?? '/api', options.fetch);
  }

  /** Asks the proxy whether search works; never throws. */
  async status(signal?: AbortSignal): Promise<WebStatus> {
    try {
      const health = await this.client.health(signal);
      if (!health.ok) return { available: false, detail: 'The web proxy reports a problem: web research is off.' };
      const backend = health.backend;
      return {
        available: true,
        ...(backend ? { backend } : {}),
        detail: backend === 'wikipedia' ? 'Searching Wikipedia (no SearXNG is configured).' : `Searching the web${backend ? ` with ${backend}` : ''}.`,
      };
    } catch (error) {
      return { available: false, detail: `Web research is unavailable: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** Answers `prompt` with web research; resolves with the answer and its numbered sources. */
  async ask(prompt: string, options: ResearchOptions = {}): Promise<ChatAnswer & { sources: Source[] }> {
    const { onActivity, ...chatOptions } = options;
    const status = await this.status(options.signal);
    if (!status.available) {
      const answer = await this.chat.chat(prompt, {
        ...chatOptions,
        toolChoice: 'none',
        instructions: [CANNOT_BROWSE_INSTRUCTIONS, chatOptions.instructions].filter(Boolean).join('\n\n'),
      });
      return { ...answer, sources: [] };
    }

    const state: WebToolState = { answer: await this.client.startAnswer(prompt, options.signal), last: new Map(), ...(onActivity ? { onActivity } : {}) };
    const userMessages = [...this.chat.history.filter((m) => m.role === 'user').map((m) => m.content), prompt];
    const saved = this.chat.tools.snapshot();
    for (const name of [WEB_SEARCH, READ_PAGE]) {
      const existing = this.chat.tools.resolveName(name);
      if (existing) this.chat.tools.unregister(existing);
    }
    registerWebTools(this.chat.tools, this.client, state);
    const effects = webToolEffects(state);
    for (const [name, effect] of Object.entries(effects)) this.chat.toolEffects.set(name, effect);
    try {
      const answer = await this.chat.chat(prompt, {
        maxRounds: RESEARCH_MAX_ROUNDS,
        toolChoice: 'required',
        ...chatOptions,
        tools: linkInPlay(userMessages) ? [WEB_SEARCH, READ_PAGE] : [WEB_SEARCH],
        instructions: [RESEARCH_INSTRUCTIONS, chatOptions.instructions].filter(Boolean).join('\n\n'),
        answerNow: async () => researchAnswerNow(await this.client.sources(state.answer).catch(() => [])),
      });
      return { ...answer, sources: await this.client.sources(state.answer).catch(() => []) };
    } finally {
      for (const name of Object.keys(effects)) this.chat.toolEffects.delete(name);
      this.chat.tools.restore(saved);
    }
  }
}

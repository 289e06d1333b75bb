/**
 * The page's only contact with research mode. Everything the page needs from `src/web` goes
 * through this file, so a change in that module's shape is adjusted here and nowhere else.
 */
import {
  READ_PAGE,
  WEB_SEARCH,
  WebResearch,
  type ChatAnswer,
  type ChatOptions,
  type NexusChat,
  type ResearchOptions,
  type Source,
  type WebActivity,
  type WebStatus,
} from '../../internal.ts';

export type { Source, WebActivity, WebStatus };

/** What the page asks of research mode. */
export interface Research {
  /** Whether search works right now; never throws. */
  status(): Promise<WebStatus>;
  /** Answers with web research; when search is unavailable the model is told it cannot browse. */
  ask(prompt: string, options: ResearchOptions<ChatOptions>): Promise<ChatAnswer & { sources: Source[] }>;
}

/** Builds the research session for a chat; the store takes one so tests can pass a fake. */
export type ResearchFactory = (chat: NexusChat | undefined) => Research;

/** Where the companion proxy lives: the page's own origin, as `npm start` serves it. */
const PROXY_BASE = '/api';

/** The research of `src/web`, over the proxy on this origin. */
export const createResearch: ResearchFactory = (chat) => {
  // status() only asks the proxy, so the switch can report before any model is loaded; ask() needs the chat.
  const research = new WebResearch<ChatOptions, ChatAnswer>(chat as NexusChat, { baseUrl: PROXY_BASE });
  return {
    status: () => research.status(),
    ask: (prompt, options) => {
      if (!chat) return Promise.reject(new Error('Load a model first.'));
      return research.ask(prompt, options);
    },
  };
};

export { READ_PAGE };

/** Tool names whose uses the page shows as "searched:"/"read:" lines rather than as calls. */
export const WEB_TOOL_NAMES: ReadonlySet<string> = new Set([WEB_SEARCH, READ_PAGE]);

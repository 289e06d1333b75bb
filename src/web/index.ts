/**
 * The browser side of the web tools: `web_search` and `read_page` through the companion proxy,
 * and research mode.
 *
 * @packageDocumentation
 */
export { ProxyClient, ProxyUnavailableError, type Budget, type Source, type ToolReply } from './proxy-client.ts';
export { CANNOT_BROWSE_INSTRUCTIONS, RESEARCH_INSTRUCTIONS } from './research-prompts.ts';
export { READ_PAGE, WEB_SEARCH, registerWebTools, sourcesOfCalls, type WebActivity, type WebToolState } from './web-tools.ts';
export {
  RESEARCH_MAX_ROUNDS,
  WebResearch,
  type ResearchAnswerOptions,
  type ResearchChat,
  type ResearchOptions,
  type WebStatus,
  type WebToolEffects,
} from './web-research.ts';

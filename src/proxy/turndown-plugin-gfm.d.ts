/** Types for turndown-plugin-gfm 1.0.2, which ships none. Only what the proxy uses. */
declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  /** Adds GFM strikethrough, task lists, highlighted code blocks and tables. */
  export const gfm: TurndownService.Plugin;
  export const tables: TurndownService.Plugin;
  export const strikethrough: TurndownService.Plugin;
  export const taskListItems: TurndownService.Plugin;
  export const highlightedCodeBlock: TurndownService.Plugin;
}

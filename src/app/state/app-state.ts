import {
  ANSWER_DEFAULTS,
  DEFAULT_HUB_URL,
  DEFAULT_TOOL_SELECTION,
  WORKED_EXAMPLE_SYSTEM_PROMPT,
  type AnswerMetrics,
  type CallSource,
  type CallStatus,
  type ContextBudget,
  type FamilyInfo,
  type ForcedCallEvent,
  type KvCachePath,
  type McpAppCall,
  type McpLogLevel,
  type McpServerStatus,
  type Step,
  type Strategy,
  type ToolChoice,
  type ToolSchema,
  type ToolSearchStatus,
} from '../../internal.ts';
import type { Source, WebActivity, WebStatus } from './web-research.ts';
import type { DeviceModel } from './device-models.ts';

/** Where loading the model stands. `checking` is the self-check that the model calls tools. */
/** `confirm`: a link (`?model=`) named a model from elsewhere; nothing is downloaded until the user says so. */
export type ModelPhase = 'idle' | 'confirm' | 'loading' | 'warming' | 'checking' | 'ready' | 'error';

/** One file's download, as the progress bars show it. */
export interface FileProgress {
  loaded: number;
  /** 0 while the size is not known yet. */
  total: number;
  done: boolean;
}

/**
 * The self-check's verdict as the page shows and remembers it: the library's `ToolVerdict`, plus
 * whether it was remembered from an earlier visit rather than measured now.
 */
export interface Verdict {
  ok: boolean;
  needed_forcing: boolean;
  /** One sentence, written by the library for users. */
  detail: string;
  dtype: string;
  device: string;
  /** ISO time of the check. */
  checkedAt: string;
  remembered: boolean;
}

/** Everything the page knows about the model. */
export interface ModelState {
  phase: ModelPhase;
  /** A short name for the model being loaded or in use. */
  label?: string;
  /** What `?model=` would say for this model, when it can be named in an address. */
  address?: string;
  files: Record<string, FileProgress>;
  /** Narration of the quantizations tried ("q4 on WebGPU failed: …"). */
  attempts: string[];
  /** Device and dtype in use once ready. */
  device?: string;
  dtype?: string;
  /** CPU threads the model computes with (WASM), once ready. */
  threads?: number;
  /** How the model's KV cache travels between tokens, once ready. */
  kvCache?: KvCachePath;
  /** How many tokens a prompt and its answer may take with this model here, and why, once ready. */
  context?: ContextBudget;
  /** The model-family profile in use once ready, and what chose it. */
  family?: FamilyInfo;
  verdict?: Verdict;
  /** Set while the page walks the other quantizations looking for one that calls tools. */
  searching?: boolean;
  /** When the first bytes arrived (ms since the epoch): speed and time left are measured from it. */
  downloadStartedAt?: number;
  /** When the self-check started (ms since the epoch), so the page can say how long it has run. */
  checkStartedAt?: number;
  /** The user skipped the self-check: tools are offered, but nothing has shown the model calls them. */
  /** Every quantization the source serves was tried ("Try other quantizations"): there is nothing left to offer. */
  searched?: boolean;
  checkSkipped?: boolean;
  /** Why the model could not be loaded, and what to do. */
  error?: string;
  /** In `confirm`: where the linked model would be downloaded from, and about how much. */
  linked?: LinkedModel;
}

/** What a link asks the page to download, shown before anything is fetched. */
interface LinkedModel {
  /** The full address the files come from (the hub and the id, or a folder's URL). */
  from: string;
  /** Approximate download size, when the model is one the picker knows. */
  approxBytes?: number;
}

/** One tool use under an answer, in the order it happened. */
export type Activity =
  | {
      kind: 'call';
      id: string;
      name: string;
      arguments: Record<string, unknown>;
      source: CallSource;
      status: CallStatus;
      /** What the model was shown. */
      result: string;
      /** What the tool's server showed the user only (the model never read it). */
      shown?: string[];
      /** The tool's MCP Apps view, shown under the line with the call's arguments and result (mcp-app-view.ts). */
      app?: McpAppCall;
    }
  | {
      /** A search of the attached files: what it found (its call's details: the passages read, of how many), drawn by passages-line.ts. */
      kind: 'passages';
      query: string;
      details: Readonly<Record<string, unknown>>;
      ok: boolean;
      detail?: string;
      source?: CallSource;
    }
  | (WebActivity & {
      /** How the loop got this web call when it had to force it (primed, stepwise). */
      source?: CallSource;
      /**
       * The call as the model made it and what it was shown: not on the line, but kept with it so that a file
       * can prove the model's memory of a research answer (an import checks the history against it).
       */
      call?: { id: string; name: string; arguments: Record<string, unknown>; result: string };
    });

/** One generation's diagnostics, in the order the loop produced them. */
export type DiagnosticEntry =
  | { kind: 'raw'; round: number; strategy: string; text: string }
  | { kind: 'step'; which: string; raw: string; resolved: string }
  | { kind: 'forced'; event: ForcedCallEvent }
  | { kind: 'round'; round: number; roundKind: 'tools' | 'answer' }
  /** A log message an MCP server sent while the answer ran. */
  | { kind: 'log'; server: string; level: string; text: string };

/**
 * How a turn ended. `stopping`: Stop was pressed and the worker is finishing its step (nothing
 * more is shown). `streaming` or `stopping` in storage means the tab closed mid-answer.
 */
export type TurnState = 'streaming' | 'stopping' | 'done' | 'stopped' | 'failed';

/** One message of the conversation as the page shows it. */
export interface Turn {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  state: TurnState;
  /**
   * Assistant turns: the answer's steps, as the loop recorded them (generations' raw text capped, calls
   * without their raw return values) — its tool lines, diagnostics, metrics, drafts and checking state are
   * a view of them (`answer-view.ts`). Answers saved before keep the fields below instead.
   */
  steps?: Step[];
  /** Tool uses, for an answer saved without its steps. */
  activity?: Activity[];
  sources?: Source[];
  diagnostics?: DiagnosticEntry[];
  /** Counters, for an answer saved without its steps (those with steps fold them from the steps). */
  metrics?: AnswerMetrics;
  /** Research mode was on for this answer. */
  web?: boolean;
  /** Regenerate sampled this answer anew, at this temperature (its free generations; forced calls stay greedy). */
  sampled?: number;
  /** Which model wrote the answer, and where ("qwen3-0.6b · WebGPU q4f16"), for the answer's quiet line. */
  model?: string;
  /** Why the answer failed, or a note such as "interrupted when the page closed". */
  note?: string;
  /**
   * Text the user watched stream in a round that then used a tool (a first draft, or prose before
   * a call): kept, folded above the answer, never silently replaced.
   */
  drafts?: string[];
  /** The loop is asking the model for a tool call it did not write on its own. */
  checking?: boolean;
  /** A tool running now and what its server last reported of its progress (not saved). */
  running?: { name: string; progress: string };
  /** User turns: what the user attached (its text goes to the model after the message, fenced as data). */
  attachments?: Attachment[];
}

/** Text the user attached to a message: in the composer until sent, then on the message as a chip. */
export interface Attachment {
  name: string;
  /** Where it came from ("MCP server Team notes", "file"). */
  from: string;
  /** Characters of it the model was given. */
  chars: number;
  /** It was cut to fit; how long it was. */
  cutFrom?: number;
  /** What the model is given (after the message, fenced as data). */
  text: string;
  /** The marker its fence was sent with, so every later answer renders the message the same way. */
  fence?: string;
  /**
   * Too long to read whole: `text` is all of it, kept and indexed on this device in passages, and the model
   * reads the passages that answer each question (`search_attachments`), never the whole.
   */
  indexed?: { passages: number };
}

/**
 * A stored conversation: its turns, each answer with its steps. What the model remembers — the messages
 * and where its memory begins — is derived from them (`conversation-history.ts`), never kept beside them.
 */
export interface Conversation {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  turns: Turn[];
  /** Instructions for this conversation only, added after the system prompt. */
  instructions?: string;
  /**
   * What a user message led to before it was edited or answered again, by the message's position
   * in `turns`: the way back (see `conversation-versions.ts`).
   */
  versions?: Record<string, VersionSet>;
}

/** The models on this device and the storage the browser grants, as the list shows them. */
interface DeviceModelsState {
  models: DeviceModel[];
  /** Bytes this site uses and may use, as the browser estimates them. */
  usage?: number;
  quota?: number;
  /** The browser keeps this site's storage until the user deletes it (it was asked once). */
  persisted: boolean;
  /** What the last Delete freed, said under the list. */
  freed?: string;
}

/** What the conversation list shows. */
export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: string;
}

/** The user's settings; every field is sent with each answer. */
export interface Settings {
  systemPrompt: string;
  answerPrompt: string;
  strategy: Strategy;
  toolChoice: ToolChoice;
  maxRounds: number;
  repetitionPenalty: number;
  /** Sampling for prose (0: greedy); tool calls are always greedy. */
  temperature: number;
  /** Nucleus for sampled prose (1: off). */
  topP: number;
  enableThinking: boolean;
  maxNewTokens: number;
  /** Run on a software (fallback) WebGPU adapter when there is no GPU, instead of WASM. */
  softwareWebgpu: boolean;
  /** Where hub ids are downloaded from: the Hugging Face hub, or a mirror of it. */
  hubUrl: string;
  /** The colour scheme: the system's, or one the user chose. */
  theme: Theme;
  /**
   * With many tools, rank them by meaning too: a small sentence encoder (about 23 MB, fetched the
   * first time more tools than the threshold are loaded, then cached) beside the chat model.
   */
  semanticToolSearch: boolean;
  /** Up to this many tools every answer is offered all of them; above it, the few that fit (default 12). */
  toolSelectionThreshold: number;
  /** The least severe MCP server log messages shown (MCP logging), or none. Applies as servers connect. */
  mcpLogLevel: McpLogLevel | 'off';
  /** The verdict card as the user last left it: open, folded, or as the screen suggests (folded on a phone). */
  verdictCard: 'auto' | 'open' | 'folded';
}

/** The page's colour schemes. */
export type Theme = 'system' | 'light' | 'dark';

/** The library's defaults, which "Reset to defaults" restores: an answer's are the loop's own, read from where it keeps them. */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  systemPrompt: ANSWER_DEFAULTS.systemPrompt,
  answerPrompt: ANSWER_DEFAULTS.answerPrompt,
  strategy: ANSWER_DEFAULTS.strategy,
  toolChoice: ANSWER_DEFAULTS.toolChoice,
  maxRounds: ANSWER_DEFAULTS.maxRounds,
  repetitionPenalty: ANSWER_DEFAULTS.repetitionPenalty,
  temperature: 0,
  topP: 0.9,
  enableThinking: ANSWER_DEFAULTS.enableThinking,
  maxNewTokens: ANSWER_DEFAULTS.maxNewTokens,
  softwareWebgpu: false,
  hubUrl: DEFAULT_HUB_URL,
  theme: 'system',
  semanticToolSearch: true,
  toolSelectionThreshold: DEFAULT_TOOL_SELECTION.threshold,
  mcpLogLevel: 'warning',
  verdictCard: 'auto',
});

/**
 * Prompts that were once the defaults, as settings saved then hold them. A user who never edited a
 * prompt gets today's default instead: the old system prompt's worked example and the answer prompt as
 * a turn after the results were measured to hurt a model that knows only its template (issue 23).
 */
const RETIRED_DEFAULT_PROMPTS: Readonly<Record<'systemPrompt' | 'answerPrompt', readonly string[]>> = {
  // The worked-example prompt, still offered as an option, was the default system prompt.
  systemPrompt: [WORKED_EXAMPLE_SYSTEM_PROMPT],
  answerPrompt: [
    'Answer the user now from the tool results above. Copy names, numbers and codes exactly as the tools returned them. ' +
      'If a tool failed, say so instead of guessing.',
  ],
};

/**
 * Settings as saved, completed with today's defaults: fields added since are filled in, and a prompt
 * still at a retired default becomes today's (one the user wrote is kept).
 */
export function upgradeSettings(saved: Partial<Settings> | undefined): Settings {
  const settings = { ...DEFAULT_SETTINGS, ...saved };
  for (const key of ['systemPrompt', 'answerPrompt'] as const) {
    if (RETIRED_DEFAULT_PROMPTS[key].includes(settings[key])) settings[key] = DEFAULT_SETTINGS[key];
  }
  return settings;
}

/** A registered tool as the tools panel shows it. */
export interface ToolInfo {
  schema: ToolSchema;
  /** Runs only after the user approves. */
  confirm: boolean;
  /** Declared free of side effects. */
  readOnly: boolean;
  /** The MCP server it comes from (its label), when not from `tools.js`. */
  server?: string;
  /** Its server changed its description, schema or hints since first listing it (it asks again). */
  changed?: boolean;
}

/** A `confirm` tool waiting for the user's decision. */
export interface ApprovalState {
  name: string;
  description: string;
  /** The MCP server the tool comes from (its label), when it does. */
  server?: string;
  arguments: Readonly<Record<string, unknown>>;
}

/** One field of a form an MCP server asks the user to fill in (elicitation). */
export interface McpFormField {
  name: string;
  /** The field's title, else its name. */
  label: string;
  description?: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'enum';
  /** An enum's values, and what each is called. */
  options?: { value: string; label: string }[];
  default?: string | number | boolean;
  required: boolean;
  /** A string's format (`email`, `uri`, `date`, `date-time`), for the input's type. */
  format?: string;
}

/** What an MCP server asks of the user now; the page shows one at a time. */
export type McpRequestState =
  | { id: number; kind: 'form'; server: string; address: string; message: string; fields: McpFormField[] }
  | {
      id: number;
      kind: 'url';
      server: string;
      address: string;
      message: string;
      /** The page as the browser will reach it: http(s) only, no user info, no bidi controls. */
      url: string;
      /** Its host as the browser will reach it (punycode), shown apart so a look-alike shows. */
      host: string;
    }
  | {
      id: number;
      kind: 'sample';
      server: string;
      address: string;
      messages: { role: 'user' | 'assistant'; text: string }[];
      systemPrompt?: string;
      maxTokens: number;
      /** What of the request the model in the tab cannot honour, in words. */
      declined: string[];
    };

/** What a connected MCP server offers beside tools, and what it said. */
export interface McpServerExtras {
  resources: { uri: string; name: string; description?: string; mimeType?: string }[];
  prompts: { name: string; title?: string; description?: string; arguments?: { name: string; required?: boolean; description?: string }[] }[];
  /** Its log messages at the level asked, newest last (a few). */
  log: { level: McpLogLevel; text: string }[];
  /** It asks the user to sign in: the authorization page to open. */
  signIn?: string;
}

/** The whole page state; the store replaces it on every change, so elements compare by identity. */
export interface AppState {
  /** What the browser offers; undefined while asking. */
  runtime: { webgpu: boolean; shaderF16: boolean; fallbackAdapter?: boolean } | undefined;
  model: ModelState;
  conversation: Conversation;
  conversations: ConversationSummary[];
  /** An answer is being generated. */
  busy: boolean;
  /** The conversation the running answer is written in (the user may be reading another meanwhile). */
  answeringIn?: string;
  /** The models this browser keeps, as the settings drawer lists them (read when it is opened). */
  deviceModels?: DeviceModelsState;
  /** Why the list did not do what was asked (a conversation another tab is answering in cannot be deleted). */
  listNote?: string;
  /** Why the last file the user chose was not attached (shown by the message box until the next attach). */
  attachError?: string;
  /** Stop was pressed and the answer is winding down. */
  stopping?: boolean;
  /**
   * A message accepted and not yet answered, or being answered: it may wait for another tab that
   * answers in this conversation (`tab`), for the model's self-check (`check`), for the model to
   * load (`model`), or for the files attached to it to be read (`files`).
   */
  queued?: { readonly text: string; readonly waitingFor?: 'tab' | 'check' | 'model' | 'files' };
  /** A new version of the page is installed and waits for the next reload. */
  updateReady?: boolean;
  /** A queued message the user took back with Stop: the composer shows it again, so nothing typed is lost. */
  returnedText?: string;
  settings: Settings;
  web: { enabled: boolean; status?: WebStatus };
  tools: {
    list?: ToolInfo[];
    error?: string;
    loading: boolean;
    url: string;
    /** With many tools: which the last answer offered, and why each (from `chat.lastToolSelection`). */
    lastOffered?: Readonly<Record<string, string>>;
    /** The group the chat model picked for the last answer, when the rankings were unsure. */
    lastGroup?: string;
    /** Where the semantic tool search stands (from `chat.toolSearch`). */
    search?: ToolSearchStatus;
  };
  /** The MCP servers tools come from (`tools.js`, the app server's relay, the user's list), and where each stands. */
  mcp: readonly McpServerStatus[];
  approval?: ApprovalState;
  /** What an MCP server asks of the user (a form, a page to open, a completion by the model). */
  mcpRequest?: McpRequestState;
  /** Resources, prompts, log lines and sign-ins of the MCP servers, by address. */
  mcpExtras: Readonly<Record<string, McpServerExtras>>;
  /** Attached to the next message (an MCP resource), shown as chips in the composer. */
  attachments: readonly Attachment[];
  /** Files chosen for the next message and still being read, by name: shown as chips, and a message sent meanwhile waits for them. */
  attachmentsReading?: readonly string[];
  /** A passing message for the status line (saved, copied, restored …). */
  notice?: string;
  /** Why the last import was refused. */
  importError?: string;
  /** The settings a reset replaced, and which of them differed, which Undo brings back. */
  settingsUndo?: { before: Settings; changed: string[] };
  /** A conversation just deleted, which Undo brings back. */
  undoDelete?: { title: string };
  /** Searching the saved conversations: the words, and the conversations whose title or text has them. */
  conversationSearch?: { query: string; matches: ConversationSummary[] };
}

/** A fresh, empty conversation. */
export function emptyConversation(id: string, now = new Date()): Conversation {
  const at = now.toISOString();
  return { id, title: 'New conversation', createdAt: at, updatedAt: at, turns: [] };
}

/**
 * The conversation from one of the user's messages on, as it was before that message was edited
 * or answered again: kept, so the user can go back to it.
 */
export interface ConversationBranch {
  /** The turns from the user's message on. */
  turns: Turn[];
  /** Versions further down this branch, by the position of their user message in `turns` of the whole conversation. */
  versions?: Record<string, VersionSet>;
}

/** The other versions at one user message, and which place the shown one takes among them all. */
export interface VersionSet {
  others: ConversationBranch[];
  /** The shown version's place, 0-based, among all `others.length + 1`. */
  index: number;
}

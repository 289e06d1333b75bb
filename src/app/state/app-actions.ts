import type { McpAppResource, McpAppToolResult, McpElicitationAnswer, ModelSource } from '../../internal.ts';
import type { Settings } from './app-state.ts';
import type { ConversationFile } from '../conversation/conversation-files.ts';

/** What the model slice does: load, check, and the choices around a load. */
export type ModelAction =
  | { type: 'loadModel'; source: ModelSource }
  | { type: 'confirmLinkedModel' }
  | { type: 'declineLinkedModel' }
  | { type: 'retryModel' }
  | { type: 'searchQuantizations' }
  | { type: 'recheckModel' }
  | { type: 'cancelLoad' }
  | { type: 'skipCheck' };

/** What the answers slice does: send, stop, answer again, edit, versions, approvals. */
export type AnswerAction =
  | { type: 'send'; text: string }
  | { type: 'stop' }
  | { type: 'regenerate' }
  | { type: 'continueAnswer' }
  | { type: 'editLast'; text: string }
  | { type: 'edit'; id: string; text: string }
  | { type: 'showVersion'; at: number; index: number }
  | { type: 'resolveApproval'; approved: boolean; alwaysInConversation?: boolean };

/** What the conversations slice does: the list, one conversation's name and instructions, files. */
export type ConversationAction =
  | { type: 'newConversation' }
  | { type: 'selectConversation'; id: string }
  | { type: 'deleteConversation'; id: string }
  | { type: 'undoDelete' }
  | { type: 'renameConversation'; id: string; title: string }
  | { type: 'setConversationInstructions'; text: string }
  | { type: 'exportConversation'; id: string; format: 'json' | 'markdown' }
  | { type: 'exportAll' }
  /** A conversation file: its text, or the file, read only if it is within the bound on what is imported. */
  | { type: 'importConversation'; name: string; text: string }
  | { type: 'importConversation'; name: string; file: { size: number; text(): Promise<string> } }
  | { type: 'searchConversations'; query: string };

/** What the tools slice does: `tools.js`. */
type ToolAction = { type: 'reloadTools' };

/** What the MCP slice does: servers, what they ask of the user and offer beside tools. */
export type McpAction =
  | { type: 'addMcpServer'; url: string; trust?: boolean }
  | { type: 'removeMcpServer'; url: string }
  | { type: 'retryMcpServer'; url: string }
  | { type: 'answerMcpRequest'; id: number; answer: McpAnswer }
  | { type: 'attachMcpResource'; url: string; uri: string }
  | { type: 'useMcpPrompt'; url: string; name: string }
  /** Reads a tool's MCP Apps view from its server, for the view element to show. */
  | { type: 'openMcpApp'; server: string; uri: string }
  /** A view calls a tool of its server (`tools/call`): asked of the user first, unless the server is trusted. */
  | { type: 'callMcpAppTool'; server: string; name: string; arguments: Record<string, unknown> }
  /** A view's message for the chat (`ui/message`): put into the message box, not sent. */
  | { type: 'mcpAppMessage'; text: string };

/** What the attachments slice does: the next message's attachments. */
export type AttachmentAction =
  | { type: 'attach'; name: string; from: string; text: string }
  /** Files the user chose (text or PDF): each read and attached, cut to fit the model's memory. */
  | { type: 'attachFiles'; files: readonly { name: string; size: number; arrayBuffer(): Promise<ArrayBuffer> }[] }
  | { type: 'detachAttachment'; index: number };

/** What the settings slice does: settings, the Web switch, the page's own update. */
type SettingsAction =
  | { type: 'updateSettings'; change: Partial<Settings> }
  | { type: 'resetSettings' }
  | { type: 'undoResetSettings' }
  | { type: 'setWeb'; enabled: boolean }
  | { type: 'applyUpdate' }
  /** Reads which models this browser keeps (when the list is opened). */
  | { type: 'listDeviceModels' }
  /** Deletes a model's files from this browser. */
  | { type: 'deleteDeviceModel'; address: string };

/** The user's answer to what an MCP server asked: a form's values, or a decision on a completion by the model. */
type McpAnswer = McpElicitationAnswer | { action: 'allow' | 'allow-always' | 'decline' };

/** Everything the page's elements ask of the store, each owned by one slice. */
export type AppAction = ModelAction | AnswerAction | ConversationAction | ToolAction | McpAction | AttachmentAction | SettingsAction;

/** What an action resolves with: a file to save, an error to show by a form; nothing to rely on for the rest. */
interface ActionResults {
  exportConversation: ConversationFile | undefined;
  exportAll: ConversationFile | undefined;
  addMcpServer: string | undefined;
  openMcpApp: McpAppResource | { error: string };
  callMcpAppTool: McpAppToolResult;
}

/** What dispatching `A` resolves with. */
export type ResultOf<A extends AppAction> = A['type'] extends keyof ActionResults ? ActionResults[A['type']] : unknown;

/** A slice's handlers, one per action type it owns. */
export type ActionHandlers<A extends AppAction> = {
  [K in A['type']]: (action: Extract<A, { type: K }>) => ResultOf<Extract<A, { type: K }>> | Promise<ResultOf<Extract<A, { type: K }>>>;
};

/**
 * An element asking for an action: it bubbles out of shadow roots to the app element, which alone holds
 * the store and sets `result` to what the dispatch returns.
 */
export class AppActionEvent extends Event {
  /** Set by whoever handles the action: the dispatch's promise. */
  result: Promise<unknown> | undefined;

  constructor(readonly action: AppAction) {
    super('app-action', { bubbles: true, composed: true });
  }
}

/**
 * Asks the app for `action` from an element: leaf elements hold no store, they fire this. Resolves with
 * the action's result once the store has handled it (at once with nothing when no app element listens).
 */
export function fire<A extends AppAction>(from: EventTarget, action: A): Promise<ResultOf<A>> {
  const event = new AppActionEvent(action);
  from.dispatchEvent(event);
  return (event.result ?? Promise.resolve(undefined)) as Promise<ResultOf<A>>;
}

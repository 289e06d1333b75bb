import { isAbortError, type ChatAnswer, type ChatOptions, type NexusChat, type PassageIndex, type Strategy, type ToolSelection } from '../../internal.ts';
import type { AppState, Attachment, DiagnosticEntry, Settings, Turn } from './app-state.ts';
import { newFence } from '../conversation/attachment-fence.ts';
import { historyOf, memoryOfTurns, userMessage } from '../conversation/conversation-history.ts';
import { keptStep } from '../conversation/answer-view.ts';
import { newId, type ConversationStore } from '../conversation/conversation-store.ts';
import { branchAt, showVersion } from '../conversation/conversation-versions.ts';
import { deviceLabel, KV_CACHE_WORDS, threadWords, titleFrom } from '../format.ts';
import type { Research, Source } from './web-research.ts';
import type { TabSync } from './tab-sync.ts';
import type { ActionHandlers, AnswerAction } from './app-actions.ts';
import type { SliceChange } from './state-writers.ts';

/** Diagnostics are for reading, not archiving: one entry's text and the entries per answer are capped. */
const MAX_DIAGNOSTICS = 200;

/** What the answer session needs of the page's store. */
export interface AnswerHost {
  /** The page's state as it is now. */
  state(): AppState;
  /** Writes this slice's own part of the page's state (see state-writers.ts). */
  set(change: SliceChange<'answers'>): void;
  notify(text: string): void;
  conversations: ConversationStore;
  /** Takes the composer's attachments for the message being sent (the attachments slice writes them). */
  takeAttachments(): Attachment[];
  /** While files for the next message are being read: when they are all read (or refused). */
  attachmentsReading(): Promise<void> | undefined;
  /** What the answer that ended offered of the tools, and why (the store's tools part keeps it). */
  offered(selection: ToolSelection | undefined): void;
  /** The loaded chat, when there is one. */
  chat(): NexusChat | undefined;
  /** Web research over the chat, when the proxy is there. */
  research(): Research | undefined;
  /** Skips a running self-check (the user would rather chat than wait). */
  skipCheck(): void;
  /** The load or re-check in progress, if one is. */
  loading(): Promise<void> | undefined;
  /** The page's tool-selection settings, for each answer. */
  toolSelection(): ChatOptions['toolSelection'];
  /** The other tabs: one at a time answers in a conversation. */
  tabs?: TabSync;
  /** The MCP server a tool comes from (its label), for the approval dialog. */
  serverOf?(toolName: string): string | undefined;
}

/**
 * The answers part of the page's store: sending, streaming into the answer's turn, Stop,
 * regenerate and edit, and the approval of `confirm` tools. State stays in the one
 * {@link AppState}; this part writes the answer's turn and the busy flags.
 */
export class AnswerSession {
  private stopController: AbortController | undefined;
  /** The turn the running answer writes into. */
  private answeringId: string | undefined;
  /** The turn the last answer wrote into. */
  private lastAnswerId: string | undefined;
  private pendingApproval: ((approved: boolean) => void) | undefined;
  /** Tools the user allowed for the rest of a conversation, by conversation id. */
  private readonly allowedTools = new Map<string, Set<string>>();
  /** Takes back the message that waits for the conversation (another tab answering there). */
  private queuedStop: AbortController | undefined;

  /** The answers slice's actions, which the store's one dispatch routes here (see app-actions.ts). */
  readonly actions: ActionHandlers<AnswerAction> = {
    send: ({ text }) => this.send(text),
    stop: () => this.stop(),
    regenerate: () => this.regenerate(),
    continueAnswer: () => this.continueLast(),
    editLast: ({ text }) => this.editLast(text),
    edit: ({ id, text }) => this.edit(id, text),
    showVersion: ({ at, index }) => this.showVersion(at, index),
    resolveApproval: ({ approved, alwaysInConversation }) => this.resolveApproval(approved, { alwaysInConversation: alwaysInConversation === true }),
  };

  constructor(private readonly host: AnswerHost) {}

  /**
   * Sends a message and streams the answer. Ignored while an answer runs or with no model. While
   * another tab answers in this conversation, the message waits for it (the page says so; Stop
   * takes it back) and is then added to the conversation as that tab left it. While the model's
   * self-check runs, it waits for the verdict, which decides whether calls may be forced.
   */
  async send(text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt || this.host.state().busy || this.host.state().queued !== undefined) return;
    await this.inConversation({ text: prompt, returnOnStop: true }, () => this.sendNow(prompt));
  }

  /**
   * Runs `work` as the one tab answering in the open conversation, on the conversation as stored.
   * From the call on, the message is `queued`: Send is Stop at once, so a second Enter sends nothing twice.
   */
  private async inConversation(message: { text: string; returnOnStop: boolean }, work: () => Promise<void>): Promise<void> {
    const { tabs } = this.host;
    const id = this.host.state().conversation.id;
    const controller = new AbortController();
    this.queuedStop = controller;
    this.host.set({ queued: { text: message.text }, returnedText: undefined });
    const run = async () => {
      this.host.set({ queued: { text: message.text } });
      if (controller.signal.aborted || this.host.state().conversation.id !== id) return;
      await this.host.conversations.reloadOpen();
      if (!controller.signal.aborted) await work();
    };
    try {
      if (!tabs) await run();
      else
        await tabs.withConversation(id, { signal: controller.signal, onWait: () => this.host.set({ queued: { text: message.text, waitingFor: 'tab' } }) }, run);
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      if (this.queuedStop === controller) this.queuedStop = undefined;
      this.host.set({ queued: undefined });
      if (controller.signal.aborted && message.returnOnStop) this.host.set({ returnedText: message.text });
    }
  }

  private async sendNow(prompt: string, again?: readonly Attachment[], how: { sampled?: boolean } = {}): Promise<void> {
    const taken = this.queuedStop?.signal;
    const phase = this.host.state().model.phase;
    if (phase === 'checking' || phase === 'loading' || phase === 'warming') {
      // The message waits for the model, and for the verdict, which decides whether calls may be
      // forced. The check card's Skip sends it at once; Stop takes it back.
      this.host.set({ queued: { text: prompt, waitingFor: phase === 'checking' ? 'check' : 'model' } });
      await untilDoneOrAborted(this.host.loading(), taken);
      if (taken?.aborted) return;
      this.host.set({ queued: { text: prompt } });
      if (this.host.state().model.phase !== 'ready') {
        // The load failed or was cancelled: the message goes back to the box, not into the void.
        this.host.set({ returnedText: prompt });
        return;
      }
    }
    // Files still being read go with the message they were attached to: it waits for them, saying so.
    const reading = again ? undefined : this.host.attachmentsReading();
    if (reading) {
      this.host.set({ queued: { text: prompt, waitingFor: 'files' } });
      await untilDoneOrAborted(reading, taken);
      if (taken?.aborted) return;
      this.host.set({ queued: { text: prompt } });
    }
    const chat = this.host.chat();
    if (!chat || this.host.state().busy || this.host.state().model.phase !== 'ready') return;
    // From here the message is in the conversation: Stop stops its answer, not the message, and the
    // list is free again (the answer goes on in its conversation while the user reads another).
    this.queuedStop = undefined;
    this.host.set({ queued: undefined });
    const attachments = this.takeAttachments(again);
    const user: Turn = {
      id: newId(),
      role: 'user',
      text: prompt,
      state: 'done',
      ...(attachments.length ? { attachments } : {}),
    };
    const { label, device, dtype, threads, kvCache } = this.host.state().model;
    const answer: Turn = {
      id: newId(),
      role: 'assistant',
      text: '',
      state: 'streaming',
      steps: [],
      web: this.host.state().web.enabled,
      ...(how.sampled ? { sampled: samplingFor(this.host.state().settings, true).temperature } : {}),
      ...(label
        ? {
            model: [label, deviceLabel(device, dtype), ...(threads ? [threadWords(threads)] : []), ...(kvCache ? [KV_CACHE_WORDS[kvCache].short] : [])].join(
              ' · ',
            ),
          }
        : {}),
    };
    const conversation = this.host.state().conversation;
    this.host.conversations.setConversation({
      ...conversation,
      title: conversation.turns.length ? conversation.title : titleFrom(prompt),
      turns: [...conversation.turns, user, answer],
    });
    await this.runAnswer(chat, userMessage(user).content, answer.id, how.sampled === true);
  }

  /**
   * What goes with the message: the composer's attachments (taken out of it, each given its fence
   * marker), or those of the message answered again, with the markers they were sent with.
   */
  private takeAttachments(again: readonly Attachment[] | undefined): Attachment[] {
    if (again) return [...again];
    return this.host.takeAttachments().map((attachment) => ({ ...attachment, fence: newFence() }));
  }

  /**
   * Adds a line to the running answer's diagnostics (an MCP server's log message). A line that arrives
   * just after the answer ended (a server's log travels apart from its result) goes to that answer.
   */
  diagnose(entry: DiagnosticEntry): void {
    const id = this.answeringId ?? this.lastAnswerId;
    if (id) this.host.conversations.updateTurn(id, (turn) => ({ diagnostics: [...(turn.diagnostics ?? []), entry].slice(-MAX_DIAGNOSTICS) }));
  }

  /** A tool of the running answer reported progress: shown on its row until its result comes. */
  progress(tool: string, text: string): void {
    const id = this.answeringId;
    if (id) this.host.conversations.updateTurn(id, () => ({ running: { name: tool, progress: text } }));
  }

  /**
   * Stops the answer being generated (and refuses a pending approval). The page stops showing
   * text at once — the answer is `stopping` until the worker has ended its step — so nothing
   * appears after Stop, however long the step takes.
   */
  stop(): void {
    // A message not yet in the conversation is taken back; nothing else stops.
    if (this.queuedStop) {
      this.queuedStop.abort();
      return;
    }
    this.resolveApproval(false);
    this.host.skipCheck();
    const controller = this.stopController;
    if (!controller || controller.signal.aborted) return;
    controller.abort();
    const answering = this.answeringId;
    if (answering) this.host.conversations.updateTurn(answering, (turn) => (turn.state === 'streaming' ? { state: 'stopping', note: 'Stopping…' } : {}));
    this.host.set({ stopping: true });
  }

  /** Puts a text into the message box, not sent (an MCP server's prompt, for the user to read first). */
  compose(text: string): void {
    this.host.set({ returnedText: text });
  }

  /** Answers the last message again: the last exchange is cut from the history first. */
  async regenerate(): Promise<void> {
    if (this.host.state().queued || !this.lastExchange()) return;
    await this.inConversation({ text: this.lastExchange()?.user.text ?? '', returnOnStop: false }, async () => {
      const last = this.lastExchange();
      if (last) await this.resend(last.user, last.user.text, { sampled: true });
    });
  }

  /**
   * Goes on with the last answer where it was stopped (Continue): the model writes on in the same answer,
   * which then reads as one. Ignored unless the last answer was stopped with some text.
   */
  async continueLast(): Promise<void> {
    if (this.host.state().queued || !this.stoppedAnswer()) return;
    await this.inConversation({ text: '', returnOnStop: false }, async () => {
      const answer = this.stoppedAnswer();
      const chat = this.host.chat();
      if (!answer || !chat) return;
      this.queuedStop = undefined;
      this.host.set({ queued: undefined });
      await this.runAnswer(chat, '', answer.id, false, answer);
    });
  }

  /** The last answer, when it was stopped before it was done and has text to go on from. */
  private stoppedAnswer(): Turn | undefined {
    if (!this.canBranch()) return undefined;
    const last = this.host.state().conversation.turns.at(-1);
    return last?.role === 'assistant' && last.state === 'stopped' && last.text.trim() ? last : undefined;
  }

  /** Replaces the last message with `text` and answers it. */
  editLast(text: string): Promise<void> {
    const last = this.host.state().conversation.turns.findLast((t) => t.role === 'user');
    return last ? this.edit(last.id, text) : Promise.resolve();
  }

  /**
   * Replaces the user's message `id` (any of them, not only the last) with `text` and answers it.
   * What followed that message is kept as a version the user can go back to.
   */
  async edit(id: string, text: string): Promise<void> {
    if (this.host.state().queued || !this.canBranch() || !text.trim()) return;
    await this.inConversation({ text: text.trim(), returnOnStop: true }, async () => {
      const user = this.host.state().conversation.turns.find((t) => t.id === id && t.role === 'user');
      if (user && this.canBranch()) await this.resend(user, text);
    });
  }

  /**
   * Shows another version of what followed the user's message at position `at` (see
   * `showVersion` in conversation-versions.ts); the model continues from the version shown.
   */
  showVersion(at: number, index: number): void {
    if (this.host.state().queued || !this.canBranch()) return;
    const next = showVersion(this.host.state().conversation, at, index);
    if (next) this.host.conversations.setConversation(next);
  }

  private canBranch(): boolean {
    return !this.host.state().busy && this.host.chat() !== undefined;
  }

  private lastExchange(): { user: Turn } | undefined {
    if (!this.canBranch()) return undefined;
    const turns = this.host.state().conversation.turns;
    const user = turns.findLast((t) => t.role === 'user');
    return user ? { user } : undefined;
  }

  private async resend(user: Turn, text: string, how: { sampled?: boolean } = {}): Promise<void> {
    // The exchange is cut below: from here Stop stops the new answer, it does not take back the edit.
    this.queuedStop = undefined;
    const chat = this.host.chat();
    if (!chat) return;
    const conversation = this.host.state().conversation;
    // What is cut stays as a version at this message: an edit or a new answer has a way back.
    const cut = branchAt(conversation, user);
    this.host.conversations.setConversation({ ...cut, title: cut.turns.length ? cut.title : titleFrom(text) });
    const prompt = text.trim();
    if (prompt) await this.sendNow(prompt, user.attachments ?? [], how);
  }

  /**
   * The attached documents of these turns, indexed in the documents' worker; undefined, and said, where they could
   * not be indexed within its bounds (the answer then goes on without them rather than not at all).
   */
  private async documentsOf(turns: readonly Turn[], chat: NexusChat): Promise<PassageIndex | undefined> {
    try {
      return await (await import('../conversation/document-attachments.ts')).documentIndexOf(turns, chat.sentenceEncoder);
    } catch (error) {
      this.host.notify(`The attached files could not be searched for this answer: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /**
   * Runs one answer into the turn `answerId`: a new answer to `prompt`, or, with `continued`, the stopped
   * answer in that turn going on where it stopped (its steps so far stay first in the turn's record).
   */
  private async runAnswer(chat: NexusChat, prompt: string, answerId: string, resampled = false, continued?: Turn): Promise<void> {
    const { settings, web, conversation } = this.host.state();
    const controller = new AbortController();
    this.stopController = controller;
    this.answeringId = answerId;
    this.lastAnswerId = answerId;
    // The model reads the conversation the turns show (the page owns it; the chat keeps none): before the new
    // question, or up to and with the stopped answer's text that goes on.
    const at = conversation.turns.findIndex((turn) => turn.id === answerId);
    const before = continued ? conversation.turns.slice(0, at + 1) : conversation.turns.slice(0, Math.max(at - 1, 0));
    this.host.set({ busy: true, answeringIn: conversation.id });
    if (continued) this.host.conversations.updateTurn(answerId, () => ({ state: 'streaming', note: undefined }));
    // Once Stop is pressed, what the worker still sends is not shown: the user asked for silence.
    const update = (change: (turn: Turn) => Partial<Turn>) =>
      this.host.conversations.updateTurn(answerId, (turn) => (controller.signal.aborted ? {} : change(turn)));
    const settle = (change: (turn: Turn) => Partial<Turn>) => this.host.conversations.updateTurn(answerId, change);
    const stopListening = this.listen(chat, update, { continuing: continued !== undefined });
    // Files too long to read whole, attached to this question or an earlier one: searched by passage (loaded with the first).
    const hasDocuments = !continued && conversation.turns.slice(0, at).some((turn) => turn.attachments?.some((a) => a.indexed));
    const documents = hasDocuments ? await this.documentsOf(conversation.turns.slice(0, at), chat) : undefined;
    const options: ChatOptions = {
      signal: controller.signal,
      systemPrompt: settings.systemPrompt,
      answerPrompt: settings.answerPrompt,
      toolSelection: this.host.toolSelection(),
      approve: (request) => this.requestApproval(request.name, request.arguments),
      strategy: toolPolicy(this.host.state().model.verdict, settings.strategy),
      repetitionPenalty: settings.repetitionPenalty,
      enableThinking: settings.enableThinking,
      maxNewTokens: settings.maxNewTokens,
      // Regenerate samples a new answer even at greedy settings: every free generation, the choice to call included (the loop's rule).
      ...(settings.temperature > 0 || resampled ? { sampling: samplingFor(settings, resampled) } : {}),
      ...(conversation.instructions?.trim() ? { instructions: conversation.instructions.trim() } : {}),
      messages: historyOf(before),
      memory: memoryOfTurns(before),
      // The documents are searched with the user's words, not with the attachments the message carries.
      ...(documents ? { documents, searchDocumentsFirst: conversation.turns[at - 1]?.text ?? true } : {}),
    };
    try {
      let result: ChatAnswer & { sources?: Source[] };
      const research = this.host.research();
      if (continued) {
        result = await chat.continueAnswer({ ...options, maxRounds: settings.maxRounds });
      } else if (web.enabled && research) {
        // Research mode sets its own tool choice and round limit (a hunt needs more than four).
        result = await research.ask(prompt, {
          ...options,
        });
      } else {
        result = await chat.chat(prompt, { ...options, toolChoice: settings.toolChoice, maxRounds: settings.maxRounds });
      }
      // An answer that finished while Stop was on its way still stops where the user saw it stop.
      if (controller.signal.aborted) settle(() => ({ state: 'stopped', note: 'Stopped.', running: undefined }));
      else
        settle((turn) => ({
          running: undefined,
          // The answer is its steps: the record the loop returned stands (the events brought the same, as they came).
          steps: result.steps.length ? [...(continued?.steps ?? []), ...result.steps.map(keptStep)] : (turn.steps ?? []),
          text: result.text,
          state: 'done',
          drafts: draftsBesides([...(turn.drafts ?? []), ...droppedFromView(turn.text, result.text)], result.text),
        }));
    } catch (error) {
      if (isAbortError(error) || controller.signal.aborted) settle(() => ({ state: 'stopped', note: 'Stopped.', running: undefined }));
      else
        settle(() => ({
          state: 'failed',
          checking: false,
          running: undefined,
          note: `The answer failed: ${error instanceof Error ? error.message : String(error)}`,
        }));
    } finally {
      stopListening();
      this.stopController = undefined;
      this.answeringId = undefined;
      this.resolveApproval(false);
      await this.host.conversations.answerEnded();
      this.host.offered(chat.lastToolSelection);
      this.host.set({ busy: false, stopping: false, answeringIn: undefined });
      await this.host.conversations.saveNow();
    }
  }

  /** Subscribes the answer's turn to the chat's events; returns the unsubscribe function. */
  private listen(chat: NexusChat, update: (change: (turn: Turn) => Partial<Turn>) => void, how: { continuing: boolean }): () => void {
    // A continuation's first round goes on from the text already shown: that text is the answer, not a draft.
    let keepShown = how.continuing;
    const offs = [
      chat.on('token', (text) => update((turn) => ({ text: turn.text + text }))),
      // The answer's record is its steps: tool lines, diagnostics, metrics and the checking state are views of them.
      chat.on('stepFinish', (step) => {
        // Text streamed in a round that ended in calls was a draft or a preamble; the answer comes
        // after. It stays on the page, folded, so nothing the user read disappears.
        const drafted = step.kind === 'round' && !keepShown;
        if (step.kind === 'round') keepShown = false;
        update((turn) => ({
          steps: [...(turn.steps ?? []), keptStep(step)],
          ...(step.kind === 'call' ? { running: undefined } : {}),
          ...(drafted && turn.text.trim() ? { text: '', ...draftedText(turn) } : {}),
        }));
      }),
    ];
    return () => {
      for (const off of offs) off();
    };
  }

  /**
   * Asks the user to approve a `confirm` tool's call; resolves with their decision.
   * @param options.server - the server to name, where the tool is not the chat's (a call an MCP app view makes).
   */
  requestApproval(name: string, args: Readonly<Record<string, unknown>>, options: { server?: string } = {}): Promise<boolean> {
    this.resolveApproval(false);
    // The conversation the answer is written in, which need not be the one open now.
    const conversation = this.host.state().answeringIn ?? this.host.state().conversation.id;
    if (this.allowedTools.get(conversation)?.has(this.approvalKey(name))) return Promise.resolve(true);
    const description = this.host.chat()?.toolSchemas.find((s) => s.function.name === name)?.function.description ?? '';
    const server = options.server ?? this.host.serverOf?.(name);
    this.host.set({ approval: { name, description, arguments: args, ...(server ? { server } : {}) } });
    return new Promise<boolean>((resolve) => {
      this.pendingApproval = resolve;
    });
  }

  /**
   * What "Allow in this conversation" allowed: the tool as it was described then. A tool whose
   * description or schema changed since (an MCP server's "Read a note" become "Email the text") asks again.
   */
  private approvalKey(name: string): string {
    const schema = this.host.chat()?.toolSchemas.find((s) => s.function.name === name)?.function;
    return `${name}\n${JSON.stringify(schema ?? null)}`;
  }

  /**
   * The user's decision on the pending approval (the model has no say). `alwaysInConversation`
   * allows the tool for the rest of this conversation, in this tab: it asks again elsewhere and after a reload.
   */
  resolveApproval(approved: boolean, options: { alwaysInConversation?: boolean } = {}): void {
    const resolve = this.pendingApproval;
    this.pendingApproval = undefined;
    const pending = this.host.state().approval;
    if (approved && options.alwaysInConversation && pending && resolve) {
      const conversation = this.host.state().answeringIn ?? this.host.state().conversation.id;
      this.allowedTools.set(conversation, new Set([...(this.allowedTools.get(conversation) ?? []), this.approvalKey(pending.name)]));
    }
    if (this.host.state().approval) this.host.set({ approval: undefined });
    resolve?.(approved);
  }
}

/**
 * What the user watched stream that the final answer no longer holds — text a stray `</think>`
 * turned into reasoning after it was shown: kept, folded, rather than vanishing.
 */
function droppedFromView(streamed: string, answer: string): string[] {
  const shown = streamed.trim();
  const final = answer.trim();
  if (!shown || shown === final) return [];
  if (final && shown.endsWith(final)) {
    const before = shown.slice(0, -final.length).trim();
    return before ? [before] : [];
  }
  return final.includes(shown) || shown.includes(final) ? [] : [shown];
}

/**
 * Where the text a round streamed goes once the round ends in calls: nowhere more when the round's own
 * `turn` step holds it (a preamble before an inline call: the view shows the steps' text as drafts),
 * else into the turn's drafts (a draft answer a later round replaced), so it shows once either way.
 */
function draftedText(turn: Turn): Pick<Turn, 'drafts'> {
  const text = turn.text.trim();
  const inSteps = (turn.steps ?? []).some((step) => step.kind === 'turn' && step.text.trim() === text);
  return inSteps ? {} : { drafts: [...(turn.drafts ?? []), text] };
}

/** The drafts worth keeping beside the final answer: not the answer itself, which is shown anyway. */
function draftsBesides(drafts: string[] | undefined, answer: string): string[] {
  return (drafts ?? []).filter((draft) => draft !== answer.trim());
}

/** Resolves when `work` settles or `signal` aborts, whichever is first. */
function untilDoneOrAborted(work: Promise<unknown> | undefined, signal: AbortSignal | undefined): Promise<void> {
  if (!work) return Promise.resolve();
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  if (!signal) return settled;
  return Promise.race([settled, new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))]);
}

/**
 * The strategy an answer runs with, set by the model's verdict: a model the check found does not
 * call tools is never forced into calls (priming and stepwise would turn an essay request into a
 * calculator call); it may still call one on its own. A model that passed, or was not checked,
 * runs with the user's setting.
 */
export function toolPolicy(verdict: { ok: boolean } | undefined, strategy: Strategy): Strategy {
  return verdict && !verdict.ok ? 'inline' : strategy;
}

/** The temperature Regenerate samples with when the settings decode greedily: a different answer, still on topic. */
const REGENERATE_TEMPERATURE = 0.7;

/** The sampling of an answer: the settings', or for Regenerate at least {@link REGENERATE_TEMPERATURE}. */
function samplingFor(settings: Settings, resampled: boolean): { temperature: number; topP: number } {
  return { temperature: resampled ? Math.max(settings.temperature, REGENERATE_TEMPERATURE) : settings.temperature, topP: settings.topP };
}

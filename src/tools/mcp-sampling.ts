/**
 * MCP sampling answered by the model in this tab: a server's `sampling/createMessage` request becomes
 * a plain model turn (no tools) through the model's own chat template, and its answer is what MCP expects.
 */
import { NexusError } from '../shared/errors.ts';
import type { McpSamplingAnswer, McpSamplingRequest } from './mcp-options.ts';

/** The most tokens one sampling answer may take, whatever a server asks (a small model's answer budget). */
export const MAX_SAMPLING_TOKENS = 1024;

/**
 * A sampling request this client will not answer, with why (a request without messages, a role MCP does
 * not have). Not registered to cross the worker: sampling runs beside the page's chat, not in the worker.
 */
export class McpSamplingError extends NexusError {
  override readonly name = 'McpSamplingError';
}

/** One message of a sampling request as the chat template takes it (the conversation's user and assistant turns). */
interface SamplingMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** What a model turn for a sampling request is given. */
export interface SamplingTurn {
  messages: SamplingMessage[];
  /** The request's system prompt, if any. */
  instructions?: string;
  maxNewTokens: number;
  /** Set when the request asks for a temperature above 0. */
  temperature?: number;
  /** Abort this to stop the turn (a stop sequence appeared). */
  signal: AbortSignal;
  onToken: (text: string) => void;
}

/** What a model turn for a sampling request gives back. */
export interface SamplingTurnResult {
  text: string;
  /** Tokens generated. */
  outputTokens: number;
}

/** How the request was answered: which of its asks were honoured, and which were declined and why. */
export interface SamplingReport {
  /** e.g. `maxTokens 40`, `stopSequences`, `temperature 0.7`. */
  honoured: string[];
  /** e.g. `modelPreferences (hints claude-3-sonnet): answered by the model in this tab`. */
  declined: string[];
}

/**
 * Answers one sampling request with `turn`: the request's text messages in order (an image or audio
 * part is named, not shown: the model reads text), its system prompt as instructions, `maxTokens`
 * (capped at {@link MAX_SAMPLING_TOKENS}), its stop sequences (the text is cut before the first that
 * appears, and generation stops there), and its temperature. Model preferences cannot choose another
 * model: they are declined by name in the report. `includeContext` asks for other servers' context,
 * which is never shared.
 *
 * @param request - the server's request, as MCP gives it.
 * @param turn - runs one model turn (the chat's `modelTurn` without tools).
 * @param model - the name of the model that answers, given back to the server.
 * @param signal - stops the turn (the server cancelled, or the user).
 * @throws McpSamplingError naming what is wrong with the request (no messages, a role MCP does not have).
 */
export async function answerSampling(
  request: McpSamplingRequest,
  turn: (turn: SamplingTurn) => Promise<SamplingTurnResult>,
  model: string,
  signal?: AbortSignal,
): Promise<McpSamplingAnswer & { report: SamplingReport }> {
  const report = samplingReport(request);
  const messages = samplingMessages(request);
  const maxNewTokens = Math.min(Math.max(1, Math.floor(Number(request.maxTokens) || MAX_SAMPLING_TOKENS)), MAX_SAMPLING_TOKENS);
  const stops = (request.stopSequences ?? []).filter((stop) => typeof stop === 'string' && stop.length > 0);
  const stopped = new AbortController();
  const onAbort = () => stopped.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let written = '';
  let stopAt = -1;
  const onToken = (text: string) => {
    written += text;
    if (stopAt >= 0) return;
    stopAt = firstStop(written, stops);
    if (stopAt >= 0) stopped.abort(new DOMException('A stop sequence appeared.', 'AbortError'));
  };
  try {
    const result = await turn({
      messages,
      ...(request.systemPrompt ? { instructions: request.systemPrompt } : {}),
      maxNewTokens,
      ...(typeof request.temperature === 'number' && request.temperature > 0 ? { temperature: Math.min(request.temperature, 2) } : {}),
      signal: stopped.signal,
      onToken,
    }).catch((error: unknown) => {
      // The turn was stopped by a stop sequence, not by the caller: what was written stands.
      if (stopAt >= 0 && !signal?.aborted) return { text: written, outputTokens: maxNewTokens };
      throw error;
    });
    const cut = stopAt >= 0 ? stopAt : firstStop(result.text, stops);
    const text = cut >= 0 ? result.text.slice(0, cut) : result.text;
    const stopReason = cut >= 0 ? 'stopSequence' : result.outputTokens >= maxNewTokens ? 'maxTokens' : 'endTurn';
    return { role: 'assistant', content: { type: 'text', text: text.trim() }, model, stopReason, report };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The request's messages as the chat template takes them (a part that is not text named, not shown). */
export function samplingMessages(request: McpSamplingRequest): SamplingMessage[] {
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new McpSamplingError('The sampling request has no messages: give at least one user message.');
  }
  return request.messages.map((message, index) => {
    if (message.role !== 'user' && message.role !== 'assistant') {
      throw new McpSamplingError(
        `Message ${index + 1} of the sampling request has the role "${String(message.role)}"; MCP's roles are "user" and "assistant".`,
      );
    }
    return { role: message.role, content: contentText(message.content) };
  });
}

/** Which of the request's asks are honoured and which declined, in words. */
export function samplingReport(request: McpSamplingRequest): SamplingReport {
  const honoured: string[] = [];
  const declined: string[] = [];
  const asked = Math.floor(Number(request.maxTokens));
  if (asked > MAX_SAMPLING_TOKENS) declined.push(`maxTokens ${asked}: capped at ${MAX_SAMPLING_TOKENS}, the most one answer of this model takes`);
  else if (asked > 0) honoured.push(`maxTokens ${asked}`);
  if (request.stopSequences?.length) honoured.push('stopSequences');
  if (typeof request.temperature === 'number') honoured.push(`temperature ${request.temperature}`);
  const hints = modelHints(request.modelPreferences);
  if (request.modelPreferences !== undefined) {
    declined.push(`modelPreferences${hints.length ? ` (hints ${hints.join(', ')})` : ''}: answered by the model in this tab`);
  }
  const context = (request as { includeContext?: unknown }).includeContext;
  if (context === 'thisServer' || context === 'allServers') declined.push(`includeContext "${context}": no other conversation is shared`);
  return { honoured, declined };
}

/** Where the first of `stops` begins in `text`, or -1. */
function firstStop(text: string, stops: readonly string[]): number {
  let first = -1;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

/** A message's content as text: text parts kept, others named (a text model cannot see them). */
function contentText(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part) => {
      const typed = part as { type?: unknown; text?: unknown; mimeType?: unknown } | null;
      if (typed?.type === 'text' && typeof typed.text === 'string') return typed.text;
      const kind = typeof typed?.type === 'string' ? typed.type : 'unknown';
      return `[${kind === 'image' ? 'an image' : kind === 'audio' ? 'an audio clip' : `a ${kind} part`}${typeof typed?.mimeType === 'string' ? ` (${typed.mimeType})` : ''}: not shown, this model reads text]`;
    })
    .join('\n');
}

function modelHints(preferences: unknown): string[] {
  const hints = (preferences as { hints?: unknown } | undefined)?.hints;
  if (!Array.isArray(hints)) return [];
  return hints.flatMap((hint) => (typeof (hint as { name?: unknown })?.name === 'string' ? [(hint as { name: string }).name] : [])).slice(0, 4);
}

import type { LanguageModelV4Prompt, SharedV4Warning } from '@ai-sdk/provider';
import type { ChatMessage, ChatToolCall } from '../engine/engine.ts';

/** An AI SDK prompt as this project's conversation: the caller's system text apart, every other turn in the OpenAI shape. */
export interface ConvertedPrompt {
  /** The SDK's system messages, joined: said after the project's own system prompt. */
  instructions: string | undefined;
  messages: ChatMessage[];
  warnings: SharedV4Warning[];
}

/** Tool output in the SDK's result shapes, as the text the model reads. */
function outputText(output: { type: string; value?: unknown; reason?: string }): string {
  switch (output.type) {
    case 'text':
      return String(output.value ?? '');
    case 'error-text':
      return `Error: ${String(output.value ?? '')}`;
    case 'json':
      return JSON.stringify(output.value);
    case 'error-json':
      return `Error: ${JSON.stringify(output.value)}`;
    case 'execution-denied':
      return `The user did not approve this call${output.reason ? `: ${output.reason}` : '.'}`;
    case 'content':
      return (output.value as { type: string; text?: string }[])
        .map((part) => (part.type === 'text' ? (part.text ?? '') : `[${part.type} not shown to this text model]`))
        .join('\n');
    default:
      return JSON.stringify(output.value ?? null);
  }
}

/** A call's input as the arguments object the chat templates render (`tojson`): an object, or parsed from its JSON text. */
function argumentsOf(input: unknown): Record<string, unknown> {
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/**
 * Converts an AI SDK prompt. Text models read text: a file part is left out with a warning, as the
 * specification asks of a provider that cannot honour a part; reasoning parts of earlier turns are
 * kept as the assistant's reasoning (a template that shows reasoning renders it).
 * @param prompt - the SDK's prompt, system messages included.
 */
export function convertPrompt(prompt: LanguageModelV4Prompt): ConvertedPrompt {
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  const warnings: SharedV4Warning[] = [];
  const fileSkipped = () => {
    if (!warnings.some((w) => w.type === 'unsupported' && w.feature === 'file parts')) {
      warnings.push({ type: 'unsupported', feature: 'file parts', details: 'this provider runs text models: images and files in the prompt are left out' });
    }
  };
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user': {
        const text = message.content
          .map((part) => {
            if (part.type === 'text') return part.text;
            fileSkipped();
            return '';
          })
          .join('');
        messages.push({ role: 'user', content: text });
        break;
      }
      case 'assistant': {
        let text = '';
        let reasoning = '';
        const calls: ChatToolCall[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'reasoning') reasoning += part.text;
          else if (part.type === 'tool-call')
            calls.push({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: argumentsOf(part.input) } });
          else if (part.type === 'file') fileSkipped();
        }
        messages.push({
          role: 'assistant',
          content: text,
          ...(calls.length ? { tool_calls: calls } : {}),
          ...(reasoning ? { reasoning_content: reasoning } : {}),
        });
        // Results the provider's caller placed inside the assistant turn (provider-executed tools) follow it as tool turns.
        for (const part of message.content) {
          if (part.type === 'tool-result')
            messages.push({ role: 'tool', tool_call_id: part.toolCallId, name: part.toolName, content: outputText(part.output) });
        }
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type === 'tool-result')
            messages.push({ role: 'tool', tool_call_id: part.toolCallId, name: part.toolName, content: outputText(part.output) });
        }
        break;
    }
  }
  return { instructions: system.length ? system.join('\n\n') : undefined, messages, warnings };
}

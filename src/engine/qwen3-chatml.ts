import type { ChatMessage, RenderOptions, ToolSchema } from './engine.ts';
import { pythonJson } from './python-json.ts';

const TOOLS_PREAMBLE =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const TOOLS_POSTAMBLE =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ' +
  '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

function isToolResponseTurn(content: string): boolean {
  return content.startsWith('<tool_response>') && content.endsWith('</tool_response>');
}

function renderTools(tools: readonly ToolSchema[], system: string | undefined): string {
  const head = system === undefined ? '' : `${system}\n\n`;
  return `<|im_start|>system\n${head}${TOOLS_PREAMBLE}${tools.map((t) => `\n${pythonJson(t)}`).join('')}${TOOLS_POSTAMBLE}`;
}

function splitReasoning(content: string): { reasoning: string; content: string } {
  if (!content.includes('</think>')) return { reasoning: '', content };
  const parts = content.split('</think>');
  const before = parts[0] ?? '';
  return {
    content: (parts[parts.length - 1] ?? '').replace(/^\n+/, ''),
    reasoning: (before.replace(/\n+$/, '').split('<think>').pop() ?? '').replace(/^\n+/, ''),
  };
}

function trimNewlines(text: string): string {
  return text.replace(/^\n+|\n+$/g, '');
}

/**
 * Renders a conversation exactly as Qwen3's own chat template does (ChatML with the `# Tools`
 * system block, `<tool_call>` lines, tool results grouped into one user turn, and the think block
 * only where the template puts it). A test compares it byte for byte with the real template.
 */
export function renderQwen3ChatML(messages: ChatMessage[], options: RenderOptions = {}): string {
  const tools = options.tools ?? [];
  const first = messages[0];
  let out = '';
  if (tools.length > 0) out += renderTools(tools, first?.role === 'system' ? first.content : undefined);
  else if (first?.role === 'system') out += `<|im_start|>system\n${first.content}<|im_end|>\n`;

  let lastQuery = messages.length - 1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'user' && !isToolResponseTurn(m.content)) {
      lastQuery = i;
      break;
    }
  }

  messages.forEach((message, index) => {
    const isLast = index === messages.length - 1;
    if (message.role === 'user' || (message.role === 'system' && index > 0)) {
      out += `<|im_start|>${message.role}\n${message.content}<|im_end|>\n`;
    } else if (message.role === 'assistant') {
      const { reasoning, content } =
        message.reasoning_content === undefined ? splitReasoning(message.content) : { reasoning: message.reasoning_content, content: message.content };
      if (index > lastQuery && (isLast || reasoning)) {
        out += `<|im_start|>assistant\n<think>\n${trimNewlines(reasoning)}\n</think>\n\n${content.replace(/^\n+/, '')}`;
      } else {
        out += `<|im_start|>assistant\n${content}`;
      }
      (message.tool_calls ?? []).forEach((call, n) => {
        if (n > 0 || content) out += '\n';
        out += `<tool_call>\n{"name": "${call.function.name}", "arguments": ${pythonJson(call.function.arguments)}}\n</tool_call>`;
      });
      out += '<|im_end|>\n';
    } else if (message.role === 'tool') {
      if (index === 0 || messages[index - 1]?.role !== 'tool') out += '<|im_start|>user';
      out += `\n<tool_response>\n${message.content}\n</tool_response>`;
      if (isLast || messages[index + 1]?.role !== 'tool') out += '<|im_end|>\n';
    }
  });

  if (options.addGenerationPrompt) {
    out += '<|im_start|>assistant\n';
    if (options.enableThinking === false) out += '<think>\n\n</think>\n\n';
  }
  return out;
}

/**
 * A chat page on the AI SDK with the model in the page: `AbstractChat` (what `useChat` wraps) over
 * `NexusChatTransport`, a `tools` object with `execute`, `stopWhen: stepCountIs(5)`, and the model in
 * a Web Worker. No server but the one serving these files (and the model folder).
 *
 * `?model=/models/<folder>` picks a model folder served beside the page (default: Qwen3-0.6B from the hub).
 */
import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, jsonSchema, stepCountIs, tool, type UIMessage } from 'ai';
import { useModelWorker } from 'browser-llm-nexus';
import { createNexus, NexusChatTransport, type NexusStatusData } from 'browser-llm-nexus/ai-sdk';

useModelWorker(() => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'nexus-model' }));

/** Test and embedding hooks: prompts to use instead of the library's (a fixture model is trained on its own). */
const { freshCode: givenCode, ...overrides } =
  (globalThis as { nexusExample?: { systemPrompt?: string; answerPrompt?: string; freshCode?: () => string } }).nexusExample ?? {};
const modelParam = new URLSearchParams(location.search).get('model');
const nexus = createNexus({ ...overrides });
const model = nexus(modelParam ? { url: modelParam } : 'onnx-community/Qwen3-0.6B-ONNX');

const ORDERS: Record<string, { status: string; tracking: string }> = {
  'A-1234': { status: 'shipped', tracking: 'TRK-55102' },
  'B-2001': { status: 'packed', tracking: 'TRK-88213' },
};

/** A code like `KX-4821-QD`, new on every call, so an answer that repeats it must have read the tool's result. */
function freshCode(): string {
  if (givenCode) return givenCode();
  const letter = () => String.fromCharCode(65 + Math.floor(Math.random() * 26));
  return `${letter()}${letter()}-${Math.floor(1000 + Math.random() * 9000)}-${letter()}${letter()}`;
}

const tools = {
  get_order_status: tool({
    description: 'Look up an order by its id and return its status and tracking number.',
    inputSchema: jsonSchema<{ order_id: string }>({
      type: 'object',
      properties: { order_id: { type: 'string', description: 'The order id, e.g. "A-1234"' } },
      required: ['order_id'],
    }),
    execute: async ({ order_id }) => ORDERS[order_id.toUpperCase()] ?? { error: `No order ${order_id}` },
  }),
  get_verification_code: tool({
    description: 'Get the current verification code for an item. The code changes every time, so always call this tool.',
    inputSchema: jsonSchema<{ item: string }>({
      type: 'object',
      properties: { item: { type: 'string', description: 'The item name, e.g. "blue falcon"' } },
      required: ['item'],
    }),
    execute: async ({ item }) => ({ item, code: freshCode() }),
  }),
};

/** The chat's state as plain fields, redrawn on every change (what a framework binding does with its own reactivity). */
class PageState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  constructor(private readonly changed: () => void) {}
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
    this.changed();
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
    this.changed();
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
    this.changed();
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class PageChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, 'messages'>, changed: () => void) {
    super({ ...init, state: new PageState(changed) });
  }
}

const list = document.querySelector<HTMLOListElement>('#messages');
const status = document.querySelector<HTMLParagraphElement>('#status');
const form = document.querySelector<HTMLFormElement>('#composer');
const input = document.querySelector<HTMLInputElement>('#prompt');

function describeStatus(data: NexusStatusData): string {
  if (data.phase === 'load') return data.progress !== undefined ? `Loading ${data.file ?? 'the model'}: ${Math.round(data.progress)}%` : `Loading the model (${data.status})…`;
  if (data.phase === 'ready') return `Model ready: ${data.model} on ${data.device} (${data.dtype}).`;
  return data.state === 'running' ? 'Checking that the model calls tools…' : data.detail;
}

function render(): void {
  if (!list) return;
  list.replaceChildren(
    ...chat.messages.map((message) => {
      const item = document.createElement('li');
      item.dataset.role = message.role;
      for (const part of message.parts) {
        if (part.type === 'text') item.append(part.text);
        else if (part.type.startsWith('tool-') && 'state' in part) {
          const line = document.createElement('div');
          line.className = 'tool';
          line.dataset.state = String(part.state);
          line.textContent = `used ${part.type.slice(5)}${part.state === 'output-available' ? ` → ${JSON.stringify(part.output)}` : '…'}`;
          item.append(line);
        }
      }
      return item;
    }),
  );
  document.body.dataset.status = chat.status;
}

const chat = new PageChat(
  {
    transport: new NexusChatTransport({ model, tools, stopWhen: stepCountIs(5), maxOutputTokens: 128, check: true }),
    onData: (part) => {
      if (status && part.type === 'data-nexus') status.textContent = describeStatus(part.data as NexusStatusData);
    },
    onError: (error) => {
      if (status) status.textContent = `Error: ${error.message}`;
    },
  },
  () => render(),
);

form?.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = input?.value.trim();
  if (!text || !input) return;
  input.value = '';
  void chat.sendMessage({ text }).finally(render);
});
document.querySelector('#stop')?.addEventListener('click', () => void chat.stop());
document.body.dataset.ready = 'true';

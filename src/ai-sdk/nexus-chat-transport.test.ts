import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, jsonSchema, stepCountIs, tool, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, prepareFixtureModels, trainedChatPrompts } from '../../tests/fixtures/prepare-models.ts';
import { seededRandom } from '../../tests/fixtures/tools-model/gen-data.ts';
import { freshToken, selfCheckQuestion } from '../check/check-questions.ts';
import { NexusChat } from '../nexus/index.ts';
import { createNexus } from './create-nexus.ts';
import { NexusChatTransport, type NexusStatusData } from './nexus-chat-transport.ts';

/** The state a UI framework binding keeps (React's, Vue's…), as plain arrays: the SDK's own `AbstractChat` drives it. */
class ArrayState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages[index] = message;
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class PlainChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, 'messages'>) {
    super({ ...init, state: new ArrayState() });
  }
  get all(): UIMessage[] {
    return this.state.messages;
  }
}

describe('useChat without a server: the AI SDK chat over NexusChatTransport, in-process on tiny-tools-qwen3', () => {
  let chat: NexusChat;
  beforeAll(async () => {
    prepareFixtureModels();
    chat = await NexusChat.load({ path: `${FIXTURE_MODELS_DIR}tiny-tools-qwen3` }, trainedChatPrompts('tiny-tools-qwen3'));
  });
  afterAll(() => chat?.dispose());

  it('reports the model and the self-check as transient data parts, then streams a grounded answer with its tool part', async () => {
    const question = selfCheckQuestion(seededRandom(70_200_001));
    const token = freshToken(seededRandom(70_200_002));
    const tools = {
      [question.tool.name]: tool({
        description: question.tool.description,
        inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object', properties: { item: question.tool.parameters.item as object }, required: ['item'] }),
        execute: async (input: Record<string, unknown>) => question.result(token, input),
      }),
    };
    const data: NexusStatusData[] = [];
    const ui = new PlainChat({
      transport: new NexusChatTransport({ model: createNexus()(undefined, { chat }), tools, stopWhen: stepCountIs(5), maxOutputTokens: 96, check: true }),
      onData: (part) => data.push(part.data as NexusStatusData),
    });
    await ui.sendMessage({ text: question.question });
    expect(ui.status).toBe('ready');
    expect(data.map((d) => (d.phase === 'check' ? `check:${d.state}` : d.phase))).toEqual(['ready', 'check:running', 'check:done']);
    expect(data.at(-1)).toMatchObject({ phase: 'check', state: 'done', ok: true });
    const answer = ui.all.at(-1);
    expect(answer?.role).toBe('assistant');
    const toolPart = answer?.parts.find((p) => p.type === `tool-${question.tool.name}`);
    expect(toolPart).toMatchObject({ state: 'output-available', output: { code: token } });
    const text = answer?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') ?? '';
    expect(text).toContain(token);
    // Transient parts are heard, never kept in the conversation.
    expect(answer?.parts.some((p) => p.type === 'data-nexus')).toBe(false);
  });
});

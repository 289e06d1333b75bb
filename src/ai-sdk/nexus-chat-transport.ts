import {
  type ChatTransport,
  convertToModelMessages,
  createUIMessageStream,
  type StopCondition,
  streamText,
  type ToolSet,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import type { NexusLanguageModel } from './nexus-language-model.ts';

/** What the transport says before the answer streams, as transient `data-nexus` parts. */
export type NexusStatusData =
  | { phase: 'load'; status: string; file?: string; progress?: number; loaded?: number; total?: number }
  | { phase: 'ready'; model: string; device: string; dtype: string }
  | { phase: 'check'; state: 'running' }
  | { phase: 'check'; state: 'done'; ok: boolean; detail: string };

/** Options of {@link NexusChatTransport}. */
export interface NexusChatTransportOptions<TOOLS extends ToolSet> {
  /** The model, from `createNexus()` (in the page, it runs in the model worker). */
  model: NexusLanguageModel;
  /** The tools, with `execute`: they run in the page. */
  tools?: TOOLS;
  /** A system message for every answer. */
  system?: string;
  /** When the steps of one answer stop (the SDK's default is one step). */
  stopWhen?: StopCondition<NoInfer<TOOLS>> | StopCondition<NoInfer<TOOLS>>[];
  /** Output tokens per step. */
  maxOutputTokens?: number;
  /** Run the self-check before the first answer and report it as a `data-nexus` part (default: when the model requires it). */
  check?: boolean;
}

/**
 * `useChat` without a server: a `ChatTransport` that runs `streamText` in the page with a Nexus
 * model, so the whole conversation — model, tools and all — stays in the browser. Before the first
 * answer it streams the model's download and warm-up, then the self-check, as transient
 * `data-nexus` parts (`{ phase: 'load' | 'ready' | 'check', … }`), which `onData` receives and
 * the message list never keeps.
 *
 * @example
 * const chat = new Chat({ transport: new NexusChatTransport({ model: nexus('onnx-community/Qwen3-0.6B-ONNX'), tools, stopWhen: stepCountIs(5) }) });
 */
export class NexusChatTransport<UI_MESSAGE extends UIMessage = UIMessage, TOOLS extends ToolSet = ToolSet> implements ChatTransport<UI_MESSAGE> {
  readonly #options: NexusChatTransportOptions<TOOLS>;
  #checked = false;

  /** @param options - the model, the tools and how an answer runs. */
  constructor(options: NexusChatTransportOptions<TOOLS>) {
    this.#options = options;
  }

  async sendMessages({ messages, abortSignal }: Parameters<ChatTransport<UI_MESSAGE>['sendMessages']>[0]): Promise<ReadableStream<UIMessageChunk>> {
    const { model, tools, system, stopWhen, maxOutputTokens } = this.#options;
    const check = this.#options.check ?? Boolean(model.settings.requireToolCalling);
    return createUIMessageStream<UI_MESSAGE>({
      execute: async ({ writer }) => {
        const status = (data: NexusStatusData) => writer.write({ type: 'data-nexus', data, transient: true } as never);
        const chat = await model.ready((event) =>
          status({
            phase: 'load',
            status: event.status,
            ...(event.file ? { file: event.file } : {}),
            ...(event.progress !== undefined ? { progress: event.progress } : {}),
            ...(event.loaded !== undefined ? { loaded: event.loaded } : {}),
            ...(event.total !== undefined ? { total: event.total } : {}),
          }),
        );
        status({ phase: 'ready', model: chat.info.model, device: chat.info.device, dtype: chat.info.dtype });
        if (check && !this.#checked) {
          status({ phase: 'check', state: 'running' });
          const verdict = await model.check();
          this.#checked = true;
          status({ phase: 'check', state: 'done', ok: verdict.ok, detail: verdict.detail });
        }
        const result = streamText({
          model,
          messages: await convertToModelMessages(messages),
          ...(system ? { system } : {}),
          ...(tools ? { tools } : {}),
          ...(stopWhen ? { stopWhen } : {}),
          ...(maxOutputTokens ? { maxOutputTokens } : {}),
          ...(abortSignal ? { abortSignal } : {}),
        });
        writer.merge(result.toUIMessageStream() as unknown as ReadableStream<never>);
      },
      onError: (error) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
    }) as ReadableStream<UIMessageChunk>;
  }

  /** Nothing streams anywhere else to reconnect to: an answer lives in this page. */
  async reconnectToStream(): Promise<ReadableStream<UIMessageChunk> | null> {
    return null;
  }
}

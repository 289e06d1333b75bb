import type { ChatMessage, Engine, GenerateOptions, GenerateResult, RenderOptions } from '../engine/engine.ts';

/**
 * An {@link Engine} that hands everything to another one: extend it and override `generate` to
 * record, replay or constrain generations around a real engine.
 */
export class DelegatingEngine implements Engine {
  constructor(readonly inner: Engine) {}
  get info() {
    return this.inner.info;
  }
  get family() {
    return this.inner.family;
  }
  render(messages: ChatMessage[], options: RenderOptions): Promise<string> {
    return this.inner.render(messages, options);
  }
  generate(prompt: string, options: GenerateOptions): Promise<GenerateResult> {
    return this.inner.generate(prompt, options);
  }
  countTokens(text: string): number {
    return this.inner.countTokens(text);
  }
  dispose(): Promise<void> {
    return this.inner.dispose();
  }
}

import { LitElement, css, html } from 'lit';
import type { Strategy, ToolChoice } from '../index.ts';
import type { Settings } from './app-state.ts';
import type { AppStore } from './app-store.ts';
import { controls } from './styles.ts';

/** The loop's settings for the next answers: prompts, strategy, tool choice, limits, thinking. */
export class SettingsPanel extends LitElement {
  static override properties = {
    store: { attribute: false },
    settings: { attribute: false },
    toolNames: { attribute: false },
  };

  /** The page's store, for changing and resetting settings. */
  declare store: AppStore;
  /** The current settings, from the store. */
  declare settings: Settings;
  /** Registered tool names, offered as "always call <name>". */
  declare toolNames: string[];

  static override styles = [
    controls,
    css`
      :host {
        display: block;
      }
      form {
        display: grid;
        gap: 0.9rem;
      }
      label {
        display: grid;
        gap: 0.3rem;
        font-weight: 600;
        font-size: 0.88rem;
      }
      .help {
        font-weight: 400;
        color: var(--muted);
        font-size: 0.8rem;
      }
      label textarea,
      label select,
      label input {
        font-weight: 400;
      }
      textarea {
        min-height: 7rem;
        resize: vertical;
        font-size: 0.84rem;
        line-height: 1.45;
      }
      .row {
        display: grid;
        /* Two columns where each keeps room for its longest choice, one where it would not. */
        grid-template-columns: repeat(auto-fit, minmax(13.5rem, 1fr));
        gap: 0.75rem;
      }
      .check {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        font-weight: 600;
      }
      .check input {
        accent-color: var(--accent);
        width: 1rem;
        height: 1rem;
      }
      .actions {
        display: flex;
        justify-content: space-between;
        align-items: center;
      }
    `,
  ];

  override render() {
    const s = this.settings;
    const choice = typeof s.toolChoice === 'object' ? `tool:${s.toolChoice.name}` : s.toolChoice;
    return html`<form data-testid="settings" @submit=${(e: Event) => e.preventDefault()}>
      <label>
        System prompt
        <span class="help">Shown while the model decides whether to call a tool. <code>{tool_call_example}</code> becomes a real call to an offered tool.</span>
        <textarea data-testid="system-prompt" .value=${s.systemPrompt} @change=${(e: Event) => this.save({ systemPrompt: value(e) })}></textarea>
      </label>
      <label>
        Answer prompt
        <span class="help">Added once tool results are in, so the model answers from them.</span>
        <textarea .value=${s.answerPrompt} @change=${(e: Event) => this.save({ answerPrompt: value(e) })}></textarea>
      </label>
      <div class="row">
        <label>
          Strategy
          <select data-testid="strategy" .value=${s.strategy} @change=${(e: Event) => this.save({ strategy: value(e) as Strategy })}>
            <option value="auto">auto: escalate as needed</option>
            <option value="inline">inline: never force</option>
            <option value="stepwise">stepwise from the start</option>
          </select>
        </label>
        <label>
          Tool choice
          <select data-testid="tool-choice" @change=${this.handleToolChoice}>
            ${[
              ['auto', 'auto: the model decides'],
              ['required', 'required: must call one'],
              ['none', 'none: no tools'],
              ...this.toolNames.map((name) => [`tool:${name}`, `always ${name}`]),
            ].map(([v, label]) => html`<option value=${v ?? ''} ?selected=${v === choice}>${label}</option>`)}
          </select>
        </label>
      </div>
      <div class="row">
        <label>
          Max rounds
          <input type="number" min="1" max="12" step="1" data-testid="max-rounds" .value=${String(s.maxRounds)} @change=${(e: Event) => this.updateNumber(e, 'maxRounds', 1, 12)} />
        </label>
        <label>
          Repetition penalty
          <input type="number" min="1" max="2" step="0.05" .value=${String(s.repetitionPenalty)} @change=${(e: Event) => this.updateNumber(e, 'repetitionPenalty', 1, 2)} />
        </label>
      </div>
      <div class="row">
        <label>
          Max new tokens
          <input type="number" min="16" max="4096" step="16" .value=${String(s.maxNewTokens)} @change=${(e: Event) => this.updateNumber(e, 'maxNewTokens', 16, 4096)} />
        </label>
        <label class="check">
          <input type="checkbox" data-testid="thinking" .checked=${s.enableThinking} @change=${(e: Event) => this.save({ enableThinking: (e.target as HTMLInputElement).checked })} />
          Thinking
        </label>
      </div>
      <label class="check">
        <input type="checkbox" data-testid="software-webgpu" .checked=${s.softwareWebgpu} @change=${(e: Event) => this.save({ softwareWebgpu: (e.target as HTMLInputElement).checked })} />
        Use a software WebGPU adapter when there is no GPU (usually slower than WASM; applies to the next load)
      </label>
      <label>
        Model hub
        <input type="url" data-testid="hub-url" spellcheck="false" .value=${s.hubUrl} @change=${this.handleHubUrl} />
        <span class="help">Where hub ids such as onnx-community/Qwen3-0.6B-ONNX are downloaded from (a mirror of huggingface.co works); applies to the next load.</span>
      </label>
      <p class="help">Research mode (the Web switch) sets its own tool choice and round limit.</p>
      <div class="actions">
        <span class="help">Saved in this browser.</span>
        <button type="button" data-testid="reset-settings" @click=${() => this.store.resetSettings()}>Reset to defaults</button>
      </div>
    </form>`;
  }

  private save(change: Partial<Settings>): void {
    this.store.updateSettings(change);
  }

  private updateNumber(event: Event, key: 'maxRounds' | 'repetitionPenalty' | 'maxNewTokens', min: number, max: number): void {
    const input = event.target as HTMLInputElement;
    const number = Number(input.value);
    if (!Number.isFinite(number)) {
      input.value = String(this.settings[key]);
      return;
    }
    const clamped = Math.min(max, Math.max(min, key === 'repetitionPenalty' ? number : Math.round(number)));
    input.value = String(clamped);
    this.save({ [key]: clamped });
  }

  private handleHubUrl(event: Event): void {
    const input = event.target as HTMLInputElement;
    const typed = input.value.trim();
    let url: URL | undefined;
    try {
      url = new URL(typed);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      // Not an address: keep the one in use rather than break every hub load.
      input.value = this.settings.hubUrl;
      return;
    }
    this.save({ hubUrl: url.href });
  }

  private handleToolChoice(event: Event): void {
    const v = value(event);
    const toolChoice: ToolChoice = v.startsWith('tool:') ? { name: v.slice(5) } : (v as ToolChoice);
    this.save({ toolChoice });
  }
}

function value(event: Event): string {
  return (event.target as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement).value;
}

customElements.define('nexus-settings-panel', SettingsPanel);

declare global {
  interface HTMLElementTagNameMap {
    'nexus-settings-panel': SettingsPanel;
  }
}

import { LitElement, html, nothing } from 'lit';
import { MCP_LOG_LEVELS, type Strategy, type ToolChoice } from '../../internal.ts';
import { DEFAULT_SETTINGS, type AppState, type Settings, type Theme } from '../state/app-state.ts';
import { settingsPanelStyles } from './settings-panel-styles.ts';
import { fire } from '../state/app-actions.ts';
import { deviceLabel, formatBytes, formatWhen } from '../format.ts';

/** The loop's settings for the next answers: prompts, strategy, tool choice, limits, thinking. */
export class SettingsPanel extends LitElement {
  static override properties = {
    settings: { attribute: false },
    toolNames: { attribute: false },
    instructions: { attribute: false },
    deviceModels: { attribute: false },
    inUse: { attribute: false },
    undo: { attribute: false },
    confirmingReset: { state: true },
  };

  /** What the last reset replaced, for Undo, from the store. */
  declare undo: AppState['settingsUndo'];
  /** Reset was pressed while something the user wrote would go: it asks first. */
  declare confirmingReset: boolean;

  /** The current settings, from the store. */
  declare settings: Settings;
  /** Registered tool names, offered as "always call <name>". */
  declare toolNames: string[];
  /** The open conversation's own instructions, from the store. */
  declare instructions: string | undefined;
  /** The models this browser keeps, read each time the drawer opens. */
  declare deviceModels: AppState['deviceModels'];
  /** The address of the model this tab has loaded, marked in the list. */
  declare inUse: string | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    void fire(this, { type: 'listDeviceModels' });
  }

  static override styles = settingsPanelStyles;

  override render() {
    const s = this.settings;
    const choice = typeof s.toolChoice === 'object' ? `tool:${s.toolChoice.name}` : s.toolChoice;
    return html`${this.renderDeviceModels()}<form data-testid="settings" @submit=${(e: Event) => e.preventDefault()}>
      <label>
        This conversation's instructions
        <span class="help">Added for this conversation only, after the system prompt ("answer in French", "you are a travel agent").</span>
        <textarea data-testid="conversation-instructions" placeholder="None" .value=${this.instructions ?? ''} @change=${(e: Event) => fire(this, { type: 'setConversationInstructions', text: value(e) })}></textarea>
      </label>
      <label>
        System prompt
        <span class="help">The system message whenever tools are offered. <code>{tool_call_example}</code> becomes a real call to an offered tool, in the model's own syntax.</span>
        <textarea data-testid="system-prompt" .value=${s.systemPrompt} @change=${(e: Event) => this.save({ systemPrompt: value(e) })}></textarea>
      </label>
      <label>
        Answer prompt
        <span class="help">Said once, right after the system prompt when tools are offered, so the model answers from their results. Empty leaves it out.</span>
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
          <span class="help">How hard the page pushes for a tool call the model did not write.</span>
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
          <span class="help">Whether the first round must call a tool, or which one.</span>
        </label>
      </div>
      <div class="row">
        <label>
          Temperature
          <input type="number" min="0" max="2" step="0.1" data-testid="temperature" .value=${String(s.temperature)} @change=${(e: Event) => this.updateNumber(e, 'temperature', 0, 2)} />
          <span class="help">0 is the most likely words every time; higher varies the prose. Tool calls stay exact.</span>
        </label>
        <label>
          Top-p
          <input type="number" min="0.05" max="1" step="0.05" data-testid="top-p" .value=${String(s.topP)} @change=${(e: Event) => this.updateNumber(e, 'topP', 0.05, 1)} />
          <span class="help">With a temperature: only words within this share of the likelihood are picked.</span>
        </label>
      </div>
      <div class="row">
        <label>
          Max rounds
          <input type="number" min="1" max="12" step="1" data-testid="max-rounds" .value=${String(s.maxRounds)} @change=${(e: Event) => this.updateNumber(e, 'maxRounds', 1, 12)} />
          <span class="help">Tool rounds before the model must answer.</span>
        </label>
        <label>
          Repetition penalty
          <input type="number" min="1" max="2" step="0.05" .value=${String(s.repetitionPenalty)} @change=${(e: Event) => this.updateNumber(e, 'repetitionPenalty', 1, 2)} />
          <span class="help">Above 1 discourages repeating itself; 1 is off.</span>
        </label>
      </div>
      <div class="row">
        <label>
          Max new tokens
          <input type="number" min="16" max="4096" step="16" .value=${String(s.maxNewTokens)} @change=${(e: Event) => this.updateNumber(e, 'maxNewTokens', 16, 4096)} />
          <span class="help">The longest one generation may be.</span>
        </label>
        <label>
          Theme
          <select data-testid="theme" @change=${(e: Event) => this.save({ theme: value(e) as Theme })}>
            ${(['system', 'light', 'dark'] as const).map((t) => html`<option value=${t} ?selected=${s.theme === t}>${t === 'system' ? 'as the system' : t}</option>`)}
          </select>
          <span class="help">Light, dark, or as this device is set.</span>
        </label>
      </div>
      <label class="check">
        <input type="checkbox" data-testid="thinking" .checked=${s.enableThinking} @change=${(e: Event) => this.save({ enableThinking: (e.target as HTMLInputElement).checked })} />
        <span>Thinking <span class="help">— let a reasoning model think first (slower; the thinking is not shown).</span></span>
      </label>
      <label>
        Offer every tool up to
        <input type="number" min="1" max="500" step="1" data-testid="tool-threshold" .value=${String(s.toolSelectionThreshold)} @change=${(e: Event) => this.updateNumber(e, 'toolSelectionThreshold', 1, 500)} />
        <span class="help">tools; with more, each answer sees only the few that fit the question (and can ask for others).</span>
      </label>
      <label class="check">
        <input type="checkbox" data-testid="semantic-tool-search" .checked=${s.semanticToolSearch} @change=${(e: Event) => this.save({ semanticToolSearch: (e.target as HTMLInputElement).checked })} />
        <span>Find tools by meaning <span class="help">— with more tools than that, a small sentence model (about 23 MB, fetched once, then cached) helps pick the few each answer sees; off: by their words only.</span></span>
      </label>
      <label>
        MCP server logs
        <select data-testid="mcp-log-level" @change=${(e: Event) => this.save({ mcpLogLevel: value(e) as Settings['mcpLogLevel'] })}>
          ${(['off', ...MCP_LOG_LEVELS] as const).map((level) => html`<option value=${level} ?selected=${s.mcpLogLevel === level}>${level === 'off' ? 'none' : `${level} and above`}</option>`)}
        </select>
        <span class="help">shown under each server in Tools; applies as servers connect.</span>
      </label>
      <label class="check">
        <input type="checkbox" data-testid="software-webgpu" .checked=${s.softwareWebgpu} @change=${(e: Event) => this.save({ softwareWebgpu: (e.target as HTMLInputElement).checked })} />
        Use a software WebGPU adapter when there is no GPU (usually slower than WASM; applies to the next load)
      </label>
      <label>
        Model hub
        <input type="url" data-testid="hub-url" spellcheck="false" .value=${s.hubUrl} @change=${this.handleHubUrl} />
        <span class="help">Where hub ids such as onnx-community/Qwen3-0.6B-ONNX are downloaded from (a mirror of huggingface.co works, if the server that serves this page lists it in CONNECT_ORIGINS: the page may fetch only from the origins it allows); applies to the next load.</span>
      </label>
      <p class="help">Research mode (the Web switch) sets its own tool choice and round limit.</p>
      <div class="actions">
        <span class="help">Saved in this browser.</span>
        <button type="button" data-testid="reset-settings" @click=${this.handleReset}>Reset to defaults</button>
      </div>
      ${this.renderReset()}
    </form>`;
  }

  /** Asking before a reset would lose a prompt the user wrote; afterwards, what it changed and Undo. */
  private renderReset() {
    if (this.confirmingReset) {
      return html`<p class="confirm" role="alert" data-testid="reset-confirm">
        Reset every setting? Your own ${[this.settings.systemPrompt !== DEFAULT_SETTINGS.systemPrompt ? 'system prompt' : '', this.settings.answerPrompt !== DEFAULT_SETTINGS.answerPrompt ? 'answer prompt' : ''].filter(Boolean).join(' and ')} will be replaced by the default.
        <button type="button" class="danger" data-testid="reset-confirm-yes" @click=${this.handleConfirmReset}>Reset</button>
        <button type="button" data-testid="reset-confirm-no" @click=${() => (this.confirmingReset = false)}>Keep my settings</button>
      </p>`;
    }
    if (!this.undo) return nothing;
    return html`<p class="confirm" role="status" data-testid="settings-undo">
      Reset to defaults: ${this.undo.changed.join(', ')}.
      <button type="button" data-testid="undo-reset" @click=${() => fire(this, { type: 'undoResetSettings' })}>Undo</button>
    </p>`;
  }

  private readonly handleReset = (): void => {
    const written = this.settings.systemPrompt !== DEFAULT_SETTINGS.systemPrompt || this.settings.answerPrompt !== DEFAULT_SETTINGS.answerPrompt;
    if (written) this.confirmingReset = true;
    else fire(this, { type: 'resetSettings' });
  };

  private readonly handleConfirmReset = (): void => {
    this.confirmingReset = false;
    fire(this, { type: 'resetSettings' });
  };

  /** The models this browser keeps: size, last use, verdict, Delete (saying what it frees), and the storage the browser grants. */
  private renderDeviceModels() {
    const state = this.deviceModels;
    if (!state) return html`<section class="device-models" data-testid="device-models"><h3>Models on this device</h3><p class="help">Reading…</p></section>`;
    const storage =
      state.usage !== undefined && state.quota
        ? `This site uses ${formatBytes(state.usage)} of the ${formatBytes(state.quota)} the browser allows it.`
        : 'The browser does not say how much it allows this site.';
    const kept = state.persisted ? 'Kept until you delete them.' : 'The browser may clear them when the disk runs low.';
    return html`<section class="device-models" data-testid="device-models" aria-labelledby="device-models-title">
      <h3 id="device-models-title">Models on this device</h3>
      ${
        state.models.length
          ? html`<ul>
              ${state.models.map(
                (m) => html`<li data-testid="device-model" data-address=${m.address}>
                  <div>
                    <strong title=${m.address}>${m.label}</strong>
                    <span class="help">${formatBytes(m.bytes)} · ${m.address === this.inUse ? 'in use now' : m.usedAt ? `used ${formatWhen(m.usedAt)}` : 'not used here yet'} · ${
                      m.verdict ? `${m.verdict.ok ? 'calls tools' : 'does not call tools'} (${deviceLabel(m.verdict.device, m.verdict.dtype)})` : 'not checked'
                    }</span>
                  </div>
                  <button type="button" class="small" data-testid="delete-device-model" aria-label=${`Delete · ${formatBytes(m.bytes)}: ${m.label}`} @click=${() => fire(this, { type: 'deleteDeviceModel', address: m.address })}>
                    Delete · ${formatBytes(m.bytes)}
                  </button>
                </li>`,
              )}
            </ul>`
          : html`<p class="help">No model is downloaded in this browser.</p>`
      }
      ${state.freed ? html`<p class="help" role="status" data-testid="device-model-freed">${state.freed}</p>` : nothing}
      <p class="help" data-testid="storage">${storage} ${kept}</p>
    </section>`;
  }

  private save(change: Partial<Settings>): void {
    fire(this, { type: 'updateSettings', change });
  }

  private updateNumber(
    event: Event,
    key: 'maxRounds' | 'repetitionPenalty' | 'maxNewTokens' | 'temperature' | 'topP' | 'toolSelectionThreshold',
    min: number,
    max: number,
  ): void {
    const input = event.target as HTMLInputElement;
    const number = Number(input.value);
    if (!Number.isFinite(number)) {
      input.value = String(this.settings[key]);
      return;
    }
    const whole = key === 'maxRounds' || key === 'maxNewTokens' || key === 'toolSelectionThreshold';
    const clamped = Math.min(max, Math.max(min, whole ? Math.round(number) : number));
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
      // Not an address: say so on the field, and keep the one in use rather than break every hub load.
      input.setCustomValidity(`"${typed}" is not a web address. Give one such as https://huggingface.co/ — the address in use stays.`);
      input.reportValidity();
      return;
    }
    input.setCustomValidity('');
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

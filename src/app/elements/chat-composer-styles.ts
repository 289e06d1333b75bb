import { css } from 'lit';
import { controls } from './styles.ts';

/** The look of `<nexus-composer>` (chat-composer.ts): the shared controls, then its own rules. */
export const chatComposerStyles = [
  controls,
  css`
    :host {
      display: block;
    }
    .chips {
      display: flex;
      flex-wrap: wrap;
      gap: 0.35rem;
      list-style: none;
      margin: 0 0 0.4rem;
      padding: 0;
    }
    .chip {
      display: inline-flex;
      align-items: center;
      gap: 0.25rem;
      border: 1px solid var(--border);
      border-radius: 999px;
      padding: 0.1rem 0.2rem 0.1rem 0.6rem;
      font-size: 0.8rem;
    }
    .chip .muted {
      color: var(--muted);
      font-size: 0.75rem;
    }
    .chip.reading {
      border-style: dashed;
      padding-right: 0.6rem;
    }
    .starters {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.35rem;
      margin: 0.4rem 0 0;
      font-size: 0.82rem;
    }
    form {
      background: var(--surface);
      border: 1px solid var(--border);
      border-radius: 16px;
      box-shadow: var(--shadow);
      padding: 0.55rem 0.6rem 0.5rem 0.9rem;
    }
    form:focus-within {
      border-color: color-mix(in srgb, var(--accent) 60%, var(--border));
    }
    button.send[aria-disabled='true'] {
      opacity: 0.5;
      cursor: default;
    }
    textarea {
      display: block;
      width: 100%;
      border: 0;
      background: transparent;
      resize: none;
      padding: 0.35rem 0;
      min-height: 1.6rem;
      max-height: 12rem;
      line-height: 1.5;
      outline: none;
      box-shadow: none;
    }
    textarea:focus {
      box-shadow: none;
    }
    .bar {
      display: flex;
      align-items: center;
      gap: 0.5rem;
      margin-top: 0.3rem;
    }
    .hint {
      flex: 1;
      font-size: 0.78rem;
      color: var(--faint);
      min-width: 0;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .switch {
      display: inline-flex;
      align-items: center;
      gap: 0.4rem;
      border-radius: 999px;
      font-size: 0.85rem;
      padding: 0.25rem 0.7rem 0.25rem 0.45rem;
    }
    .switch .knob {
      width: 1.8rem;
      height: 1rem;
      border-radius: 999px;
      background: var(--surface-3);
      position: relative;
      transition: background 0.15s;
      flex: none;
    }
    .switch .knob::after {
      content: '';
      position: absolute;
      top: 2px;
      left: 2px;
      width: 12px;
      height: 12px;
      border-radius: 50%;
      background: var(--surface);
      box-shadow: 0 1px 2px rgb(0 0 0 / 30%);
      transition: transform 0.15s;
    }
    .switch[aria-checked='true'] .knob {
      background: var(--accent);
    }
    .switch[aria-checked='true'] .knob::after {
      transform: translateX(0.8rem);
    }
    .switch.unavailable[aria-checked='true'] .knob {
      background: var(--warn);
    }
    .switch.unavailable[aria-checked='true'] {
      color: var(--warn);
      border-color: color-mix(in srgb, var(--warn) 50%, var(--border));
    }
    .send {
      border-radius: 999px;
      min-width: 4.5rem;
    }
    .web-status {
      font-size: 0.8rem;
      margin: 0.4rem 0.3rem 0;
      color: var(--muted);
    }
    .web-status.unavailable {
      color: var(--warn);
    }
    .gauge {
    display: inline-flex;
    align-items: center;
    gap: 0.35rem;
    color: var(--muted);
    font-size: 0.78rem;
    white-space: nowrap;
  }
  .gauge meter {
    width: 4rem;
    height: 0.5rem;
  }
  @media (max-width: 480px) {
    /* On a phone the numbers stay (what the meter means), only the word goes. */
    .gauge meter {
      width: 2.5rem;
    }
    .gauge .wide {
      display: none;
    }
    /* On a phone the hint has a line of its own under the buttons, rather than lose its end. */
    .bar {
      flex-wrap: wrap;
    }
    .hint {
      order: 10;
      flex-basis: 100%;
      white-space: normal;
      overflow: visible;
      line-height: 1.25;
    }
  }
`,
];

import { css } from 'lit';
import { controls, tokens } from './styles.ts';

/** The look of `<nexus-app>` (nexus-app.ts): the shared controls, then its own rules. */
export const nexusAppStyles = [
  tokens,
  controls,
  css`
    :host {
      display: block;
      /* Fixed to the viewport, so the page does not depend on the body's margins. */
      position: fixed;
      inset: 0;
      background: var(--bg);
      font-size: 15px;
      line-height: 1.5;
    }
    .shell {
      display: grid;
      grid-template-columns: 16.5rem minmax(0, 1fr);
      height: 100%;
    }
    .sidebar {
      background: var(--surface-2);
      border-right: 1px solid var(--border);
      padding: 0.9rem 0.75rem;
      display: flex;
      flex-direction: column;
      min-height: 0;
      gap: 0.75rem;
    }
    .sidebar nexus-conversations {
      flex: 1;
    }
    .sidebar .foot {
      font-size: 0.75rem;
      color: var(--faint);
      padding: 0 0.3rem;
    }
    /* Over everything while files are dragged over the page; the drop itself lands on the page below. */
    .drop-zone {
      position: fixed;
      inset: 0.75rem;
      z-index: 40;
      display: grid;
      place-items: center;
      border: 2px dashed var(--accent);
      border-radius: 14px;
      background: color-mix(in srgb, var(--bg) 88%, transparent);
      color: var(--text);
      text-align: center;
      pointer-events: none;
    }
    .drop-zone p {
      max-width: 28rem;
      margin: 0;
      line-height: 1.5;
    }
    .main {
      display: flex;
      flex-direction: column;
      min-width: 0;
      min-height: 0;
    }
    header {
      display: flex;
      align-items: center;
      gap: 0.75rem;
      padding: 0.6rem 1rem;
      border-bottom: 1px solid var(--border);
      background: var(--surface);
      min-height: 3.4rem;
    }
    .brand {
      display: flex;
      align-items: center;
      gap: 0.5rem;
      flex: none;
    }
    .logo {
      width: 1.7rem;
      height: 1.7rem;
      border-radius: 8px;
      background: linear-gradient(135deg, var(--accent), #06b6d4);
      color: #fff;
      display: grid;
      place-items: center;
      font-weight: 800;
      font-size: 0.9rem;
    }
    h1 {
      font-size: 1.05rem;
      margin: 0;
      letter-spacing: -0.01em;
    }
    .status {
      display: flex;
      align-items: center;
      gap: 0.45rem;
      min-width: 0;
      font-size: 0.85rem;
      color: var(--muted);
      padding: 0.25rem 0.7rem;
      border-radius: 999px;
      background: var(--surface-2);
    }
    .status .text {
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .dot {
      width: 0.5rem;
      height: 0.5rem;
      border-radius: 50%;
      background: var(--faint);
      flex: none;
    }
    .dot.ready {
      background: var(--ok);
    }
    .dot.busy {
      background: var(--accent);
      animation: pulse 1.2s infinite;
    }
    .dot.error {
      background: var(--danger);
    }
    .dot.warn {
      background: var(--warn);
    }
    @keyframes pulse {
      50% {
        opacity: 0.3;
      }
    }
    @media (prefers-reduced-motion: reduce) {
      .dot.busy {
        animation: none;
      }
    }
    .spacer {
      flex: 1;
    }
    .panel-buttons {
      display: flex;
      gap: 0.3rem;
      flex: none;
    }
    .panel-buttons button[aria-pressed='true'] {
      background: var(--accent-soft);
      border-color: transparent;
      color: var(--accent);
    }
    .menu {
      display: none;
    }
    .scroller {
      flex: 1;
      overflow-y: auto;
      min-height: 0;
    }
    .column {
      max-width: 48rem;
      margin: 0 auto;
      padding: 1.25rem 1.25rem 1.5rem;
      display: grid;
      gap: 1.25rem;
    }
    .composer {
      padding: 0 1.25rem 1rem;
    }
    .composer > * {
      max-width: 48rem;
      margin: 0 auto;
    }
    /* Floats just above the message box, over the end of the conversation. */
    .composer {
      position: relative;
    }
    .composer > .jump {
      position: absolute;
      left: 0;
      right: 0;
      top: -2.6rem;
      max-width: none;
      display: flex;
      justify-content: center;
      pointer-events: none;
    }
    .jump button {
      pointer-events: auto;
      border-radius: 999px;
      box-shadow: var(--shadow);
      background: var(--surface);
    }
    .update {
      margin: 0 auto 0.5rem;
      max-width: 48rem;
      padding: 0.4rem 0.8rem;
      border: 1px solid var(--border);
      border-radius: 10px;
      background: var(--surface);
      color: var(--muted);
      font-size: 0.85rem;
    }
    .drawer:focus {
      /* Focused by script when it opens, so Tab starts inside it; it is not a control itself. */
      outline: none;
    }
    .drawer {
      position: fixed;
      /* Below the header, whose buttons switch and close the drawer. */
      top: 3.4rem;
      right: 0;
      bottom: 0;
      width: min(27rem, 100vw);
      background: var(--bg);
      border-left: 1px solid var(--border);
      box-shadow: var(--shadow);
      display: flex;
      flex-direction: column;
      z-index: 20;
    }
    .drawer-head {
      display: flex;
      align-items: center;
      gap: 0.3rem;
      padding: 0.6rem 0.75rem;
      border-bottom: 1px solid var(--border);
      background: var(--surface);
    }
    .drawer-head h2 {
      font-size: 1rem;
      margin: 0 0 0 0.25rem;
    }
    .drawer-body {
      overflow-y: auto;
      padding: 1rem;
      flex: 1;
    }
    .scrim {
      display: none;
    }
    /* Where the status needs the room, the shortcuts button says only its key (its name stays whole). */
    @media (max-width: 1100px) {
      .keys span {
        display: none;
      }
    }
    @media (max-width: 900px) {
      .shell {
        grid-template-columns: minmax(0, 1fr);
      }
      .sidebar {
        position: fixed;
        top: 0;
        bottom: 0;
        left: 0;
        width: min(18rem, 85vw);
        z-index: 30;
        transform: translateX(-100%);
        transition: transform 0.2s;
        box-shadow: var(--shadow);
      }
      .nav-open .sidebar {
        transform: none;
      }
      .nav-open .scrim {
        display: block;
        position: fixed;
        inset: 0;
        background: rgb(10 12 16 / 40%);
        z-index: 25;
      }
      .menu {
        display: inline-flex;
      }
      /* The logo names the app where the header is short of room; the name stays for screen readers. */
      h1 {
        position: absolute;
        width: 1px;
        height: 1px;
        overflow: hidden;
        clip-path: inset(50%);
      }
    }
    @media (max-width: 560px) {
      .drawer {
        top: 0;
      }
      /* One row of finger-sized buttons: no logo, the theme is in Settings and the shortcuts need a keyboard;
         the status takes what is left (its whole text in the model card). */
      header {
        gap: 0.35rem;
        padding: 0.3rem 0.5rem;
        min-height: 0;
      }
      header button {
        min-height: 2.5rem;
        min-width: 2.5rem;
      }
      .spacer,
      .logo,
      .theme,
      .keys {
        display: none;
      }
      .status {
        flex: 1;
        padding: 0.2rem 0.5rem;
      }
      .column {
        padding: 1rem 0.8rem 1.25rem;
      }
      .composer {
        padding: 0 0.6rem 0.6rem;
      }
    }
  `,
];

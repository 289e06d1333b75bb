/**
 * A test-only page that puts the public library on `window.nexus`, so browser tests can drive the
 * API itself (load, loadForTools, chat) in real Chromium. Built by the e2e setup, never shipped.
 */
import '../../../src/app/vite-worker.ts';
import * as nexusAiSdk from '../../../src/ai-sdk/index.ts';
import * as root from '../../../src/index.ts';
import { freshToken, listPickedModels, rememberPickedModel, selfCheckQuestion } from '../../../src/internal.ts';

/** The package's root entry, and the few internal helpers the browser tests drive. */
const nexus = { ...root, freshToken, listPickedModels, rememberPickedModel, selfCheckQuestion };

declare global {
  interface Window {
    nexus: typeof nexus;
    /** The AI SDK provider entry (`browser-llm-nexus/ai-sdk`). */
    nexusAiSdk: typeof nexusAiSdk;
  }
}

window.nexus = nexus;
window.nexusAiSdk = nexusAiSdk;
document.body.dataset.ready = 'true';

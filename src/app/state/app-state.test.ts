import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, upgradeSettings } from './app-state.ts';

const RETIRED_SYSTEM_PROMPT =
  "You are a helpful assistant running in the user's browser. When one of the tools below can answer, call it instead of guessing, by writing exactly:\n{tool_call_example}\nUse the real tool name and the user's values. When no tool fits, answer directly and briefly.";
const RETIRED_ANSWER_PROMPT =
  'Answer the user now from the tool results above. Copy names, numbers and codes exactly as the tools returned them. If a tool failed, say so instead of guessing.';

describe('upgradeSettings', () => {
  it('fills in what older saved settings lack', () => {
    expect(upgradeSettings(undefined)).toEqual(DEFAULT_SETTINGS);
    expect(upgradeSettings({ maxRounds: 7 })).toEqual({ ...DEFAULT_SETTINGS, maxRounds: 7 });
  });

  it("replaces prompts still at a retired default with today's, keeping the rest", () => {
    const upgraded = upgradeSettings({ systemPrompt: RETIRED_SYSTEM_PROMPT, answerPrompt: RETIRED_ANSWER_PROMPT, maxRounds: 6 });
    expect(upgraded).toMatchObject({ systemPrompt: DEFAULT_SETTINGS.systemPrompt, answerPrompt: DEFAULT_SETTINGS.answerPrompt, maxRounds: 6 });
  });

  it('keeps prompts the user wrote, an emptied answer prompt included', () => {
    expect(upgradeSettings({ systemPrompt: 'Be terse.', answerPrompt: '' })).toMatchObject({ systemPrompt: 'Be terse.', answerPrompt: '' });
  });
});

import { describe, expect, it } from 'vitest';
import { toolPolicy } from './answer-session.ts';

describe("the verdict sets the answer's tool policy", () => {
  it('never forces calls on a model the check found does not call tools', () => {
    expect(toolPolicy({ ok: false }, 'auto')).toBe('inline');
    expect(toolPolicy({ ok: false }, 'stepwise')).toBe('inline');
  });

  it("keeps the user's strategy for a model that passed, or was not checked", () => {
    expect(toolPolicy({ ok: true }, 'auto')).toBe('auto');
    expect(toolPolicy(undefined, 'stepwise')).toBe('stepwise');
  });
});

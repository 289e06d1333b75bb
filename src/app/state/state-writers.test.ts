import { describe, expect, it } from 'vitest';
import { EVERY_KEY_OWNED, STATE_WRITERS } from './state-writers.ts';

describe("the page's state has one writer per key (issue 55)", () => {
  it('gives no key to two writers', () => {
    const owners = new Map<string, string[]>();
    for (const [writer, keys] of Object.entries(STATE_WRITERS)) for (const key of keys) owners.set(key, [...(owners.get(key) ?? []), writer]);
    expect([...owners].filter(([, writers]) => writers.length > 1)).toEqual([]);
    expect(EVERY_KEY_OWNED).toBe(true);
  });
});

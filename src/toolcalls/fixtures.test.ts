import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadFixture } from './__fixtures__/load.ts';
import { FIXTURES } from './__fixtures__/manifest.ts';
import { parseToolCalls } from './parse-tool-calls.ts';

describe("model outputs written in each family's shape (not recorded from a run)", () => {
  it('has an expectation for every fixture file and a file for every expectation', () => {
    const files = readdirSync(new URL('./__fixtures__/', import.meta.url)).filter((f) => f.endsWith('.txt'));
    expect(new Set(FIXTURES.map((f) => f.file))).toEqual(new Set(files));
  });

  for (const fixture of FIXTURES) {
    it(`${fixture.file} (${fixture.model})`, () => {
      const raw = loadFixture(fixture.file);
      const result = parseToolCalls(raw, fixture.tools === undefined ? {} : { tools: fixture.tools });
      expect(result.calls).toEqual(fixture.calls);
      expect(result.text).toBe(fixture.text);
      expect((result.rejected ?? []).map(({ name, reason }) => ({ name, reason }))).toEqual(fixture.rejected ?? []);
    });
  }
});

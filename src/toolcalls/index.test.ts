import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as toolcalls from './index.ts';

describe('browser-llm-nexus/toolcalls', () => {
  it('exports the documented API', () => {
    expect(typeof toolcalls.parseToolCalls).toBe('function');
    expect(typeof toolcalls.stripThinking).toBe('function');
    expect(typeof toolcalls.ToolCallStreamFilter).toBe('function');
    expect(toolcalls.TOOL_CALL_FORMATS.length).toBeGreaterThanOrEqual(6);
  });

  it('imports nothing of the rest of the package, and only jsonrepair from npm', () => {
    const dir = new URL('./', import.meta.url);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      for (const [, specifier] of source.matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)) {
        const allowed = specifier === 'jsonrepair' || /^\.\/(?!\.)/.test(specifier ?? '');
        expect(allowed, `${file} imports ${specifier}`).toBe(true);
      }
    }
  });
});

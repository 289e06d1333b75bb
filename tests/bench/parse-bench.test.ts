import { describe, expect, it } from 'vitest';
import { LONGEST_MARKER } from '../../src/toolcalls/formats.ts';
import { UPSTREAM_TOOLS } from '../../src/toolcalls/__fixtures__/upstream-cases.ts';
import { benchParse, buildInput } from './parse-bench.ts';

describe('benchParse', () => {
  it('reports throughput against JSON.parse and the hold-back over all fixtures', () => {
    const result = benchParse({ targetBytes: 200_000, runs: 2 });
    expect(result.inputBytes).toBeGreaterThan(200_000);
    expect(result.calls).toBeGreaterThan(100);
    expect(result.parseMBps).toBeGreaterThan(0);
    expect(result.jsonParseMBps).toBeGreaterThan(0);
    expect(result.ratio).toBeCloseTo(result.parseMBps / result.jsonParseMBps);
    // A marker is never held longer than its longest prefix (nor a first line longer than the longest tool name).
    expect(result.maxMarkerHeld).toBeLessThanOrEqual(Math.max(LONGEST_MARKER, ...UPSTREAM_TOOLS.map((t) => t.length)) - 1);
    expect(result.maxHeldBack).toBeGreaterThanOrEqual(result.maxMarkerHeld);
  });

  it('builds its input from the fixtures and prose, to the size asked', () => {
    const input = buildInput(50_000);
    expect(input.length).toBeGreaterThanOrEqual(50_000);
    expect(input).toContain('<tool_call>');
    expect(input).toContain('[TOOL_CALLS]');
  });
});

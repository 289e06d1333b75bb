import { describe, expect, it } from 'vitest';
import { benchParse, buildInput } from './parse-bench.ts';

describe('benchParse', () => {
  it('reports throughput against JSON.parse and the hold-back over all fixtures', () => {
    const result = benchParse({ targetBytes: 200_000, runs: 2 });
    expect(result.inputBytes).toBeGreaterThan(200_000);
    expect(result.calls).toBeGreaterThan(100);
    expect(result.parseMBps).toBeGreaterThan(0);
    expect(result.jsonParseMBps).toBeGreaterThan(0);
    expect(result.ratio).toBeCloseTo(result.parseMBps / result.jsonParseMBps);
    // The longest marker is `<|python_tag|>`: a marker is never held longer than its prefix.
    expect(result.maxMarkerHeld).toBeLessThanOrEqual('<|python_tag|>'.length - 1);
    expect(result.maxHeldBack).toBeGreaterThanOrEqual(result.maxMarkerHeld);
  });

  it('builds its input from the fixtures and prose, to the size asked', () => {
    const input = buildInput(50_000);
    expect(input.length).toBeGreaterThanOrEqual(50_000);
    expect(input).toContain('<tool_call>');
    expect(input).toContain('[TOOL_CALLS]');
  });
});

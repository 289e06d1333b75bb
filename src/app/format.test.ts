import { describe, expect, it } from 'vitest';
import { formatApproxBytes, formatBytes, formatPercent, formatRate, formatSeconds, formatWait } from './format.ts';

describe('progress words', () => {
  it('writes sizes a person reads at a glance, and nothing as 0 KB rather than an ellipsis', () => {
    expect(formatBytes(0)).toBe('0 KB');
    expect(formatBytes(2_000)).toBe('2 KB');
    expect(formatBytes(350 * 1024 * 1024)).toBe('350.0 MB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.50 GB');
    expect(formatPercent(1, 3)).toBe('33%');
    expect(formatPercent(1, 0)).toBe('');
  });

  it('says the speed and the time left once there is something to measure', () => {
    expect(formatRate(0, 100, 5_000)).toBe('');
    expect(formatRate(1_000_000, 2_000_000, 100)).toBe('');
    expect(formatRate(10 * 1024 * 1024, 40 * 1024 * 1024, 5_000)).toBe('2.0 MB/s · about 15 s left');
    expect(formatRate(10 * 1024 * 1024, 610 * 1024 * 1024, 10_000)).toBe('1.0 MB/s · about 10 min left');
    expect(formatRate(10 * 1024 * 1024, 0, 5_000)).toBe('2.0 MB/s');
  });
});

describe('formatApproxBytes', () => {
  it('gives estimates two significant figures, so "about" sizes side by side read alike (issue 30, P3)', () => {
    expect(formatApproxBytes(600e6)).toBe('570 MB');
    expect(formatApproxBytes(572.2 * 1024 * 1024)).toBe('570 MB');
    expect(formatApproxBytes(23 * 1024 * 1024)).toBe('23 MB');
    expect(formatApproxBytes(1.23 * 1024 ** 3)).toBe('1.2 GB');
    expect(formatApproxBytes(512)).toBe('0.5 KB');
  });
});

describe('durations', () => {
  it('says a wait under a second in milliseconds, and longer ones in seconds', () => {
    expect(formatWait(420.4)).toBe('420 ms');
    expect(formatWait(1234)).toBe('1.2 s');
    expect(formatSeconds(2449)).toBe('2.4 s');
  });
});

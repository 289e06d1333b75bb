import { describe, expect, it } from 'vitest';
import { parseTimeRange } from './time-range.ts';

describe('parseTimeRange', () => {
  it.each([
    ['day', 'day'],
    ['today', 'day'],
    ['week', 'week'],
    ['7d', 'week'],
    ['month', 'month'],
    ['30d', 'month'],
    ['year', 'year'],
    ['12m', 'year'],
    [' Week ', 'week'],
    ['TODAY', 'day'],
  ])('%j → %s', (input, expected) => {
    expect(parseTimeRange(input)).toBe(expected);
  });

  it.each(['hour', '24h', '1y', '', 'all', 'latest', null, undefined, 7, {}])('anything else is no range: %j', (input) => {
    expect(parseTimeRange(input)).toBeUndefined();
  });
});

/** The recency windows SearXNG understands. */
export type TimeRange = 'day' | 'week' | 'month' | 'year';

// A Map, not an object literal: `ALIASES['constructor']` would be Object.prototype's.
const ALIASES: ReadonlyMap<string, TimeRange> = new Map(
  Object.entries({
    day: 'day',
    today: 'day',
    week: 'week',
    '7d': 'week',
    month: 'month',
    '30d': 'month',
    year: 'year',
    '12m': 'year',
  }) as Array<[string, TimeRange]>,
);

/**
 * Reads a model's `time_range` argument: day/week/month/year, or the aliases today, 7d, 30d, 12m
 * (case and surrounding spaces ignored). Anything else — including nothing — means no range.
 * @param value - the argument as given.
 * @returns the SearXNG `time_range` value, or undefined for no range.
 */
export function parseTimeRange(value: unknown): TimeRange | undefined {
  if (typeof value !== 'string') return undefined;
  return ALIASES.get(value.trim().toLowerCase());
}

import { describe, expect, it } from 'vitest';
import { createFetchLogSink, toLogRecord, type FetchLogEntry } from './fetch-log.ts';

describe('fetch log', () => {
  const entry: FetchLogEntry = { time: '2026-01-01T00:00:00.000Z', url: 'https://a.example/', ip: '93.184.216.34', status: 200, bytes: 12, ms: 5, hop: 0 };

  it('rule 8: keeps exactly the allowed fields', () => {
    expect(toLogRecord(entry)).toEqual({ event: 'fetch', ...entry });
  });

  it('rule 8: never lets anything else through, even if a caller attaches it', () => {
    const leaky = { ...entry, body: 'SECRET PAGE TEXT', headers: { cookie: 'x' } } as FetchLogEntry;
    const record = toLogRecord(leaky);
    expect(JSON.stringify(record)).not.toContain('SECRET');
    expect(JSON.stringify(record)).not.toContain('cookie');
  });

  it('writes one record per entry', () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = createFetchLogSink((r) => lines.push(r));
    sink(entry);
    sink({ ...entry, hop: 1, reason: 'refused' });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ hop: 1, reason: 'refused' });
  });
});

/**
 * One record per fetch attempt and per redirect hop (rule 8). Holds where the request went and how
 * it ended — never any page content.
 */
export interface FetchLogEntry {
  /** ISO time the hop started. */
  time: string;
  /** The address of this hop (normalised when it passed the URL rules, as written otherwise). */
  url: string;
  /** The IP address connected to, or null when the hop was refused before connecting. */
  ip: string | null;
  /** HTTP status, or null when there was no response. */
  status: number | null;
  /** Body bytes read (0 for a redirect or a refused response). */
  bytes: number;
  /** Milliseconds from the start of the hop to its end. */
  ms: number;
  /** 0 for the requested address, 1.. for each redirect followed. */
  hop: number;
  /** Why the hop was refused or failed; absent on success and on a followed redirect. */
  reason?: string;
  /** The answer session this read belongs to, when known. */
  answer?: string;
}

/** Receives {@link FetchLogEntry} records; the proxy writes each as one JSON log line. */
export type FetchLogSink = (entry: FetchLogEntry) => void;

/** Fields a log line may carry; anything else handed to {@link toLogRecord} is dropped. */
const FIELDS = ['time', 'url', 'ip', 'status', 'bytes', 'ms', 'hop', 'reason', 'answer'] as const;

/**
 * Copies only the allowed fields of an entry into a fresh object (so a caller that attaches more —
 * a body, headers — cannot get it into the log by accident), and caps string lengths.
 *
 * @param entry - a fetch record.
 * @returns a plain object with `event: 'fetch'` and the {@link FetchLogEntry} fields.
 *
 * @remarks Security: rule 8. Threat: fetches leaving no trace for the operator, and — the other way
 * round — page contents, which may hold personal data or hostile text, landing in the journal.
 */
export function toLogRecord(entry: FetchLogEntry): Record<string, unknown> {
  const record: Record<string, unknown> = { event: 'fetch' };
  for (const key of FIELDS) {
    const value = entry[key];
    if (value === undefined) continue;
    record[key] = typeof value === 'string' ? value.slice(0, key === 'url' ? 2100 : 300) : value;
  }
  return record;
}

/**
 * A sink that writes each entry as one JSON line to `write` (e.g. a stream's write, or a pino
 * logger's `info` bound to a child), keeping only {@link toLogRecord}'s fields.
 * @param write - receives one record per hop.
 */
export function createFetchLogSink(write: (record: Record<string, unknown>) => void): FetchLogSink {
  return (entry) => write(toLogRecord(entry));
}

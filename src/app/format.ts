/** Small formatting helpers shared by the page's elements. */

import type { KvCachePath } from '../internal.ts';

/** "12 KB", "1.4 MB", "1.20 GB"; an ellipsis while the size is unknown. */
export function formatBytes(bytes: number): string {
  if (!bytes) return '0 KB';
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/**
 * A size given as an estimate ("about 600 MB"): two significant figures, so estimates side by side
 * read alike and claim no precision they lack. Exact sizes (progress) use {@link formatBytes}.
 */
export function formatApproxBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 ** 3, 'GB'],
    [1024 ** 2, 'MB'],
    [1024, 'KB'],
  ];
  const [size, unit] = units.find(([size]) => bytes >= size) ?? [1024, 'KB'];
  const value = Number((bytes / size).toPrecision(2));
  return `${value >= 100 ? Math.round(value) : value} ${unit}`;
}

/** Whole percent, clamped, for progress labels. */
export function formatPercent(loaded: number, total: number): string {
  if (!total) return '';
  return `${Math.min(100, Math.floor((loaded / total) * 100))}%`;
}

/** "WebGPU q4f16", "WASM q4": how users and the verdict name a device and quantization. */
export function deviceLabel(device: string | undefined, dtype: string | undefined): string {
  const where = device === 'webgpu' ? 'WebGPU' : (device ?? '').toUpperCase();
  return [where, dtype].filter(Boolean).join(' ');
}

/** `city: Chennai, days: 3` — arguments the way the tool lines show them. */
export function formatArgs(args: Readonly<Record<string, unknown>>): string {
  return Object.entries(args)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

/** A tool result for display: JSON pretty-printed when it is JSON, the text otherwise. */
export function formatResult(result: string): string {
  try {
    return JSON.stringify(JSON.parse(result), null, 2);
  } catch {
    return result;
  }
}

/** A duration in seconds with one decimal: "2.4 s". */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A wait a user notices in milliseconds under a second (time to first token often is), else in seconds. */
export function formatWait(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : formatSeconds(ms);
}

/** "just now", "5 min ago", "yesterday", or a date: for the conversation list. */
export function formatWhen(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const minutes = Math.round((now - then) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  if (hours < 48) return 'yesterday';
  return new Date(then).toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
}

/** A conversation title from its first message: one line, at most 48 characters. */
export function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 48 ? `${line.slice(0, 47)}…` : line || 'New conversation';
}

/** Download speed and time left, from the bytes since the first one arrived; empty until it can be told. */
export function formatRate(loaded: number, total: number, elapsedMs: number): string {
  if (elapsedMs < 500 || loaded <= 0) return '';
  const perSecond = loaded / (elapsedMs / 1000);
  const speed = `${formatBytes(perSecond)}/s`;
  if (!total || loaded >= total) return speed;
  const left = Math.ceil((total - loaded) / perSecond);
  const time = left < 60 ? `${left} s` : left < 3600 ? `${Math.ceil(left / 60)} min` : `${(left / 3600).toFixed(1)} h`;
  return `${speed} · about ${time} left`;
}

/** How the model's KV cache travels between tokens, in words (the diagnostics say which path runs). */
export const KV_CACHE_WORDS: Readonly<Record<KvCachePath, { short: string; detail: string }>> = {
  appended: {
    short: 'steady on long chats',
    detail:
      'The model returns only each new token’s keys and values; they are appended to buffers the engine keeps, so nothing the size of the conversation is copied per token.',
  },
  'present-on-gpu': { short: 'memory on the GPU', detail: 'The KV cache stays in GPU memory between tokens; nothing of it is read back.' },
  recurrent: {
    short: 'running state',
    detail:
      'Some of this model’s layers keep a running state instead of keys and values. A state cannot be rewound, so the cache is reused only when the next prompt continues the last one exactly; a retry of the same prompt is computed again.',
  },
  'present-copied': {
    short: 'slows as a chat grows',
    detail:
      'This model returns its whole KV cache after every token, and ONNX Runtime copies it out on the CPU: decoding slows as the conversation grows. A model built with the appended KV layout avoids the copy.',
  },
};

/** "1 thread", "2 threads": how many CPU threads the model computes with. */
export function threadWords(threads: number): string {
  return `${threads} thread${threads === 1 ? '' : 's'}`;
}

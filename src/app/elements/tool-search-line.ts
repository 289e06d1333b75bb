import type { ToolSearchStatus } from '../../internal.ts';
import { formatApproxBytes, formatBytes, formatSeconds } from '../format.ts';

/** The Tools panel's line about finding tools by meaning: what it does for the user, and why not when it failed. */
export interface ToolSearchLine {
  readonly text: string;
  /** The failure as reported, for a "Why" fold; absent unless the search failed. */
  readonly why?: string;
  readonly failed: boolean;
}

/**
 * Says where finding tools by meaning stands in a user's words — what it does, what it cost, what
 * happens instead when it failed — never the embedding model's repository id or its vector size
 * (those stay in diagnostics). `undefined` while there is nothing to say (off, not needed yet).
 */
export function describeToolSearch(search: ToolSearchStatus | undefined): ToolSearchLine | undefined {
  if (!search || search.state === 'off' || search.state === 'idle') return undefined;
  if (search.state === 'loading') {
    const progress = search.progress ? ` · ${formatBytes(search.progress.loaded)} of ${formatBytes(search.progress.total)}` : '…';
    return { text: `Downloading the helper model that picks tools by meaning${progress}`, failed: false };
  }
  if (search.state === 'failed') {
    return {
      text: 'Each question gets the tools that share its words: the helper model that matches meaning did not load.',
      failed: true,
      ...(search.error ? { why: search.error } : {}),
    };
  }
  const info = search.info;
  const cost = info ? ` (a ${info.bytes ? `${formatApproxBytes(info.bytes)} ` : ''}helper model, ready in ${formatSeconds(info.loadMs)})` : '';
  const kept = search.vectors.reused ? ` · ${search.vectors.reused} tool descriptions kept from an earlier visit` : '';
  return { text: `Each question gets the tools closest to its meaning${cost}${kept}.`, failed: false };
}

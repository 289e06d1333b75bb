/**
 * The line of an answer that searched the attached files: which passages the model read, where they are, of how
 * many, visible without a hover (issue 54). Loaded with the first answer that has one.
 */
import { html, nothing } from 'lit';
import type { Activity } from '../state/app-state.ts';

/** The line of one search of the attached files. */
export function passagesLine(a: Extract<Activity, { kind: 'passages' }>) {
  const { read, documents } = passagesOf(a.details);
  if (!a.ok) {
    return html`<li class="failed" data-testid="tool-row" data-kind="passages">
      <span class="what">searching the attached files failed: '${a.query}'</span> <span class="badge danger">${a.detail ?? 'failed'}</span>
    </li>`;
  }
  const of = documents.filter((d) => read.some((r) => r.document === d.name));
  return html`<li data-testid="tool-row" data-kind="passages">
    <span class="what">${read.length ? (a.details.skimmed === true ? 'no passage matched, so read through the attached files' : 'read from the attached files') : 'searched the attached files, nothing matched'}: '${a.query}'</span>
    ${read.length ? html`<span class="badge">${read.length} passage${read.length === 1 ? '' : 's'} of ${of.reduce((n, d) => n + d.passages, 0)}</span>` : nothing}
    ${
      read.length
        ? html`<ul class="passages" data-testid="passages-read">
            ${read.map((r) => html`<li><a class="cite" href="#source-${r.n}">[${r.n}]</a> ${r.document}, ${r.reference}</li>`)}
          </ul>`
        : nothing
    }
  </li>`;
}

/** What a search of documents found, from its call's details: the passages read and each document's size in passages. */
export function passagesOf(details: Readonly<Record<string, unknown>>): {
  read: { n: number; document: string; reference: string }[];
  documents: { name: string; passages: number }[];
} {
  const items = (value: unknown) =>
    Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : [];
  return {
    read: items(details.passages).flatMap((p) =>
      typeof p.n === 'number' && typeof p.document === 'string' && typeof p.reference === 'string'
        ? [{ n: p.n, document: p.document, reference: p.reference }]
        : [],
    ),
    documents: items(details.documents).flatMap((d) =>
      typeof d.name === 'string' && typeof d.passages === 'number' ? [{ name: d.name, passages: d.passages }] : [],
    ),
  };
}

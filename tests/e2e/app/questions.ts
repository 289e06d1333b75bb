import { deflateSync } from 'node:zlib';
/** What the e2e tests ask the scripted harness; its script answers exactly these. */
export const QUESTIONS = {
  weather: 'What is the weather in Chennai right now?',
  paris: 'How warm is it in Paris?',
  markup: 'Show me the tricky markup.',
  email: 'Email Bob that I am running late.',
  research: 'Who won the 2022 World Cup?',
  mcpSum: 'Add 4000 and 2 with the notes server.',
  mcpDirect: 'Add 1000 and 234 with the direct server.',
  mcpDelete: 'Delete note 7 from my notes.',
  mcpSlow: 'Echo hello slowly.',
  mcpAskName: 'Ask for my name with the features server.',
  mcpSummarize: 'Summarize the day with the features server.',
  mcpCount: 'Count to three with the features server.',
  mcpAttached: 'What does the attached note say?',
  mcpOslo: 'What is the weather in Oslo with the features server?',
  mcpPay: 'Pay my bill with the features server.',
  mcpApp: 'Show me teal in the colour picker.',
  longLines: 'Show me the long link and the long code.',
  hostileMarkdown: 'Show me the markdown that freezes parsers.',
  files: 'What do the attached files say?',
  gulls: 'How many gulls does the lighthouse keeper count?',
  bomb: 'What does the long PDF say?',
  summarise: 'Summarise the attached file.',
  codeAndMath: 'Show me some code and a formula.',
  debris: 'Is it sunny?',
  table: 'Compare the cities in a table.',
} as const;

/**
 * A one-page PDF whose page shows `text` (Helvetica, no compression), written byte by byte with its
 * cross-reference table, as a PDF writer would: what a user attaches from a word processor, small.
 */
export function pdfWithText(text: string): Buffer {
  const escaped = text.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 18 Tf 72 720 Td (${escaped}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/**
 * A one-page PDF whose page shows `lines` runs of sixty letters (each set at one place), its content stream compressed
 * (FlateDecode): a file of some 20 KB per 10 million characters of text, as a deflate bomb is made
 * (issue 52). Written byte by byte as {@link pdfWithText} is.
 */
export function pdfBomb(lines: number): Buffer {
  const run = `1 0 0 1 72 700 Tm (${'A'.repeat(60)}) Tj `;
  const content = deflateSync(Buffer.from(`BT /F1 12 Tf 14 TL 72 720 Td ${run.repeat(lines)}ET`, 'latin1'));
  const head = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const add = (chunk: Buffer) => {
    parts.push(chunk);
    length += chunk.length;
  };
  head.forEach((object, i) => {
    offsets.push(length);
    add(Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1'));
  });
  offsets.push(length);
  add(Buffer.from(`4 0 obj\n<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'));
  add(content);
  add(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  offsets.push(length);
  add(Buffer.from('5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n', 'latin1'));
  const xref = length;
  add(
    Buffer.from(
      `xref\n0 6\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/**
 * A PDF of a few hundred bytes that takes seconds and gigabytes to open (issue 67, L8): its cross-reference stream,
 * compressed twice, inflates to `entries` three-byte entries, which pdf.js reads one by one before any page (20
 * million: 6 s and 1.9 GB in Node's pdf.js).
 */
export function pdfSlowToOpen(entries: number): Buffer {
  const data = deflateSync(deflateSync(Buffer.alloc(entries * 3)));
  const head = Buffer.from('%PDF-1.5\n', 'latin1');
  return Buffer.concat([
    head,
    Buffer.from(
      `1 0 obj\n<< /Type /XRef /Size ${entries} /W [1 1 1] /Root 2 0 R /Filter [/FlateDecode /FlateDecode] /Length ${data.length} >>\nstream\n`,
      'latin1',
    ),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${head.length}\n%%EOF\n`, 'latin1'),
  ]);
}

/** An HTML file nested `depth` elements deep: an HTML parser's slowest input for its size (100,000 deep, 1.1 MB: 13 s in linkedom under Node, 60,000 deep 1 s). */
export function htmlNestedDeep(depth: number): string {
  return `<!doctype html><html><body><p>Top</p>${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}</body></html>`;
}

/** A message of about 3,000 tokens (as the scripted engine counts them): three outgrow the harness model's 8,192-token context. */
export function longNote(n: number): string {
  return `Long note ${n}: ${'the river runs past the old mill '.repeat(220)}`;
}

/** The sources the fake proxy reports for the research question. */
export const FAKE_SOURCES = [
  { n: 1, url: 'https://example.org/final', title: '2022 FIFA World Cup final', date: '2022-12-18' },
  { n: 2, url: 'https://example.org/final/penalties', title: 'Penalty shoot-out' },
] as const;

/** What a search is looking for; widens it with extra queries. */
export type SearchKind = 'jobs' | 'people';

interface Angle {
  /** Appended to the user's words. */
  suffix: string;
  /** Words that, already present in the query, mean this angle is covered. */
  coveredBy: readonly string[];
}

const ANGLES: Readonly<Record<SearchKind, readonly Angle[]>> = {
  jobs: [
    { suffix: 'job posting', coveredBy: ['posting', 'postings', 'job posting'] },
    { suffix: 'careers', coveredBy: ['career', 'careers'] },
    { suffix: 'linkedin jobs', coveredBy: ['linkedin'] },
  ],
  people: [
    { suffix: 'recruiter', coveredBy: ['recruiter', 'recruiters', 'recruiting', 'recruitment'] },
    { suffix: '"hiring manager"', coveredBy: ['hiring'] },
    { suffix: '"we are hiring"', coveredBy: ['hiring'] },
    { suffix: 'site:linkedin.com', coveredBy: ['linkedin', 'site:'] },
  ],
};

/**
 * Reads a `kind` argument: `jobs` or `people` (case-insensitive); anything else is no kind.
 * @param value - the argument as given.
 */
export function parseSearchKind(value: unknown): SearchKind | undefined {
  if (typeof value !== 'string') return undefined;
  const kind = value.trim().toLowerCase();
  return kind === 'jobs' || kind === 'people' ? kind : undefined;
}

/**
 * The queries a search of a given kind runs, the user's own words first: `jobs` adds "… job posting",
 * "… careers", "… linkedin jobs"; `people` adds "… recruiter", '… "hiring manager"',
 * '… "we are hiring"', "… site:linkedin.com". An angle whose words the query already contains is left
 * out, so a query that already says "hiring" is not searched again for saying it.
 *
 * @param query - the user's (or model's) query.
 * @param kind - the kind, or undefined for the query alone.
 */
export function searchAngles(query: string, kind: SearchKind | undefined): string[] {
  const base = query.trim();
  if (!kind) return [base];
  const words = new Set(
    base
      .toLowerCase()
      .split(/[\s"'()]+/)
      .filter(Boolean),
  );
  const lower = base.toLowerCase();
  const covered = (angle: Angle): boolean => angle.coveredBy.some((w) => (w.includes(' ') || w.endsWith(':') ? lower.includes(w) : words.has(w)));
  return [base, ...ANGLES[kind].filter((angle) => !covered(angle)).map((angle) => `${base} ${angle.suffix}`)];
}

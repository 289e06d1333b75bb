import { describe, expect, it } from 'vitest';
import { parseSearchKind, searchAngles } from './search-angles.ts';

describe('searchAngles', () => {
  it('without a kind, searches the query alone', () => {
    expect(searchAngles('  rust jobs ', undefined)).toEqual(['rust jobs']);
  });

  it('jobs: the user words first, then the posting angles', () => {
    expect(searchAngles('senior rust engineer', 'jobs')).toEqual([
      'senior rust engineer',
      'senior rust engineer job posting',
      'senior rust engineer careers',
      'senior rust engineer linkedin jobs',
    ]);
  });

  it('people: the user words first, then the people behind a posting', () => {
    expect(searchAngles('acme rust', 'people')).toEqual([
      'acme rust',
      'acme rust recruiter',
      'acme rust "hiring manager"',
      'acme rust "we are hiring"',
      'acme rust site:linkedin.com',
    ]);
  });

  it('leaves out an angle the query already covers', () => {
    expect(searchAngles('acme is hiring rust', 'people')).toEqual([
      'acme is hiring rust',
      'acme is hiring rust recruiter',
      'acme is hiring rust site:linkedin.com',
    ]);
    expect(searchAngles('rust careers on LinkedIn', 'jobs')).toEqual(['rust careers on LinkedIn', 'rust careers on LinkedIn job posting']);
    expect(searchAngles('acme recruiters site:linkedin.com', 'people')).toEqual([
      'acme recruiters site:linkedin.com',
      'acme recruiters site:linkedin.com "hiring manager"',
      'acme recruiters site:linkedin.com "we are hiring"',
    ]);
  });

  it('parseSearchKind accepts jobs and people only', () => {
    expect(parseSearchKind('Jobs')).toBe('jobs');
    expect(parseSearchKind('people')).toBe('people');
    expect(parseSearchKind('news')).toBeUndefined();
    expect(parseSearchKind(undefined)).toBeUndefined();
  });
});

import type { SiteContext } from './site.ts';

/**
 * The entry `key` of a site's memo, created on first use. The memo is untyped storage shared by
 * the sites at one position; each key belongs to one writer, which is what makes the cast sound.
 */
export function memoEntry<T>(context: SiteContext, key: string, create: () => T): T {
  const existing = context.memo.get(key);
  if (existing !== undefined) return existing as T;
  const made = create();
  context.memo.set(key, made);
  return made;
}

/** The entry `key` if a scan already created it. */
export function memoLookup<T>(context: SiteContext, key: string): T | undefined {
  return context.memo.get(key) as T | undefined;
}

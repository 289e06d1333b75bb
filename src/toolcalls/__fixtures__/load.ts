import { readFileSync } from 'node:fs';

/** The raw text of a fixture file, byte for byte. */
export function loadFixture(file: string): string {
  return readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
}

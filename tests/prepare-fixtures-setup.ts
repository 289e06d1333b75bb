import { prepareFixtureModels } from './fixtures/prepare-models.ts';

/**
 * Vitest global setup: puts the real tokenizer files beside the fixture models once, before any test
 * file runs. The package has no `prepare` script for this (a published one would point at files the
 * package does not ship); test files that load a model still call it themselves, which is idempotent.
 */
export default function setup(): void {
  prepareFixtureModels();
}

#!/usr/bin/env node
/**
 * The package's bin: `npx browser-llm-nexus test-models --models …`, and `npm run test:models` in this
 * repository. The command itself is {@link main} in test-models-main.ts (usage there).
 */
import { main } from './test-models-main.ts';

process.exitCode = await main(process.argv.slice(2));

/** Where the e2e setup builds the library harness inside the page's build (its own assets and base). */
export const HARNESS_DIR = 'harness-build';

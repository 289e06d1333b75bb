/**
 * Pinning errors in evaluated source to a line of the user's file.
 *
 * Code compiled with `new Function` has no file behind it, so engines report positions poorly:
 * V8's SyntaxError carries no position at all, and runtime stack frames count lines of the
 * engine's wrapper (`async function anonymous(tool\n) {\n…`), not of the file. These helpers
 * recover the file's own line numbers in Node and Chromium, using only standard behaviour
 * (`//# sourceURL`, `Error.prototype.stack`, and compiling prefixes), so they run in a browser too.
 */

/** Compiles a source the way the caller will run it, throwing its SyntaxError if it has one. */
export type Compile = (source: string) => unknown;

/** JavaScript's line terminators (ECMA-262 §12.3). */
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/**
 * The 1-based line of the first syntax error in `source`.
 *
 * Works by compiling prefixes: once a prefix contains a genuine syntax error, every longer prefix
 * fails with that same message, whereas a prefix that merely stops mid-statement fails with an
 * "unexpected end" message of its own (or compiles). So the answer is the start of the run of
 * prefixes, counted back from the whole file, that fail exactly like the whole file. Walking back
 * one line at a time (rather than bisecting) matters: a prefix cut inside an unrelated open call can
 * fail with the same message by coincidence, and bisection would jump into it. The cost grows with
 * the distance from the error to the end of the file, which for a hand-written tools file is small.
 *
 * @param source - the full source that failed to compile.
 * @param compile - compiles a source exactly as the caller does (same constructor and parameters).
 * @returns the line, or `undefined` when the source compiles or no line could be singled out.
 */
export function findSyntaxErrorLine(source: string, compile: Compile): number | undefined {
  const message = compileError(source, compile);
  if (message === undefined) return undefined;
  const lines = source.split(LINE_BREAK);
  let first = lines.length;
  while (first > 1 && compileError(lines.slice(0, first - 1).join('\n'), compile) === message) first -= 1;
  return first;
}

function compileError(source: string, compile: Compile): string | undefined {
  try {
    compile(source);
    return undefined;
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}

/**
 * The first line number a stack trace gives for code compiled with `//# sourceURL=<sourceUrl>`,
 * as the engine counts it (wrapper lines included; see {@link wrapperLineCount}).
 *
 * @param stack - an `Error.prototype.stack` string, or anything else (then `undefined`).
 * @param sourceUrl - the exact name given in the `//# sourceURL` comment.
 */
export function lineInStack(stack: unknown, sourceUrl: string): number | undefined {
  if (typeof stack !== 'string') return undefined;
  const match = new RegExp(`${escapeRegExp(sourceUrl)}:(\\d+):\\d+`).exec(stack);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * How many lines the engine's wrapper adds above a body compiled by `compile`, measured once per
 * constructor by compiling a probe that creates an Error on its first line. Measured rather than
 * assumed to be 2, because the count is an engine detail.
 *
 * @param compileWithUrl - compiles a body with the given `//# sourceURL` and returns a function to call.
 */
export async function wrapperLineCount(compileWithUrl: (body: string, sourceUrl: string) => () => unknown): Promise<number> {
  const url = 'nexus-tools-probe.js';
  try {
    const probe: unknown = await compileWithUrl('return new Error("probe");', url)();
    const line = lineInStack(probe instanceof Error ? probe.stack : undefined, url);
    return line === undefined ? 0 : line - 1;
  } catch {
    return 0;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

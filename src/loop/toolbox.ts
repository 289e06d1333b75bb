import type { ToolSchema } from '../engine/engine.ts';
import { ToolNames } from '../toolcalls/tool-names.ts';
import type { ToolRunFailure } from '../tools/tool-registry.ts';

/**
 * What a tool's result does to the rest of the answer, beyond being read: a spent budget withdraws
 * a tool, or ends the tool rounds so the model answers instead of collecting refusals; a search
 * that found addresses offers the tool that reads them.
 */
export interface ToolEffects {
  withdraw?: string[];
  offer?: string[];
  endToolRounds?: boolean;
}

/** How one call runs: stopped with the answer, and how much of its result the model will read. */
export interface ToolRunOptions {
  /** Aborted when the answer is stopped. */
  signal?: AbortSignal | undefined;
  /**
   * Characters of the result the model will read (longer results are cut, with a note): a tool that
   * fetches text may fetch no more, so what it returns fits whole rather than being cut.
   */
  maxResultChars?: number | undefined;
}

/** The outcome of running one validated call. */
export type ToolRunOutcome =
  | { ok: true; value: unknown; details?: Readonly<Record<string, unknown>>; effects?: ToolEffects }
  | { ok: false; kind: ToolRunFailure; message: string; effects?: ToolEffects };

/**
 * What the loop needs from a tool registry: the offered schemas, exact-or-case-insensitive name
 * resolution (never fuzzy), and running a call with validation. Keeping it this small lets the
 * loop run over any registry — the page's, the self-check's throwaway one, a test's.
 */
export interface Toolbox {
  /** Every registered tool, as the template renders it. */
  readonly schemas: readonly ToolSchema[];
  /** The registered spelling of `name` (exact, else case-insensitive), or undefined. Never a similar name. */
  resolveName(name: string): string | undefined;
  /** Validates and coerces `args`, then runs the handler. Never throws for handler errors. */
  run(name: string, args: Record<string, unknown>, options?: ToolRunOptions): Promise<ToolRunOutcome>;
}

/** A toolbox over schemas and a function that runs a call (e.g. on the page, across a worker boundary). */
export function toolboxFrom(schemas: readonly ToolSchema[], run: Toolbox['run']): Toolbox {
  const names = ToolNames.from(schemas.map((s) => s.function.name));
  return { schemas, resolveName: (name) => names?.resolve(name), run };
}

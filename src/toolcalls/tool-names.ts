import type { ToolNameSource } from './types.ts';

/**
 * The registered tool names, for deciding whether a call may stand.
 *
 * Only an exact match or a match ignoring case is accepted — never a "close enough" name.
 * Calling the wrong tool is worse than calling none, and a 0.6B model asked for `get_weather`
 * that writes `get_wether` or `launch_missiles` has not asked for `get_weather`, even when it
 * is the only tool there is.
 */
export class ToolNames {
  private readonly exact: Set<string>;
  /** Lower-cased name → registered spelling; `null` when two registered names differ only in case. */
  private readonly folded: Map<string, string | null>;

  private constructor(names: readonly string[]) {
    this.exact = new Set(names);
    this.folded = new Map();
    for (const name of names) {
      const key = name.toLowerCase();
      const seen = this.folded.get(key);
      this.folded.set(key, seen === undefined || seen === name ? name : null);
    }
  }

  /** `undefined` when no tool list was given: then any well-formed name stands. */
  static from(tools: readonly ToolNameSource[] | undefined): ToolNames | undefined {
    if (tools === undefined) return undefined;
    return new ToolNames(tools.map(toolName));
  }

  /** Whether some registered name begins with `prefix` (ignoring case): a name still being written may become one. */
  couldBe(prefix: string): boolean {
    const folded = prefix.toLowerCase();
    for (const key of this.folded.keys()) if (key.startsWith(folded)) return true;
    return false;
  }

  /** The registered spelling of `name`, or `undefined` when it is not registered. */
  resolve(name: string): string | undefined {
    if (this.exact.has(name)) return name;
    return this.folded.get(name.toLowerCase()) ?? undefined;
  }
}

/** The name a registration carries, whichever of the accepted shapes it has. */
export function toolName(tool: ToolNameSource): string {
  if (typeof tool === 'string') return tool;
  if ('function' in tool) return tool.function.name;
  return tool.name;
}

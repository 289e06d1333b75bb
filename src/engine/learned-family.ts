import { argumentSlotIn, type CallSyntax, closersOf, describeSyntax, forcedOpenerOf, literalsOf, openerOf, readCalls, writeCalls } from './call-syntax.ts';
import type { ModelFamily } from './model-family.ts';

/** A special-token-like span: `<|…|>`, `<…>`, `[TAG]`. */
export const MARKER = /<[^<>\s]{1,48}>|\[[A-Z_/]{2,32}\]/;

/** Markers inside the pieces of a syntax: the special-token-like spans a reader must see (`<|…|>`, `<tag>`, `[TAG]`). */
function markersOf(syntax: CallSyntax): string[] {
  const found = literalsOf(syntax).flatMap((piece) => piece.match(new RegExp(MARKER, 'g')) ?? []);
  return [...new Set(found)];
}

/**
 * A profile that speaks `syntax`: the call written, primed, asked for argument by argument and read as the
 * template writes it; everything else (end tokens, thinking, results) from `family`.
 */
export function withCallSyntax(family: ModelFamily, learned: CallSyntax, endOfTurn: readonly string[] = []): ModelFamily {
  const ends = [...family.endTokens, ...endOfTurn];
  const syntax = withoutEndOfTurn(learned, ends);
  const markers = markersOf(syntax).filter((m) => !ends.includes(m));
  return Object.freeze({
    ...family,
    label: family.id === 'generic' ? 'learned from its chat template' : `${family.label}, calls as its template writes them`,
    syntax: describeSyntax(syntax),
    callOpener: openerOf(syntax),
    forcedCallOpener: (name: string) => forcedOpenerOf(syntax, name),
    callClosers: closersOf(syntax),
    formatCall: (name: string, args: Record<string, unknown>) => writeCalls(syntax, [{ name, args }]),
    formatCalls: (calls: readonly { name: string; args: Record<string, unknown> }[]) => writeCalls(syntax, calls),
    endTokens: [...new Set([...family.endTokens, ...endOfTurn])],
    keepTokens: [...new Set([...family.keepTokens, ...markers])],
    valueMarkers: [...new Set([...family.valueMarkers, ...markers, ...endOfTurn])],
    parallelCalls: syntax.joiner !== undefined,
    argumentSlot: (name: string, chosen: Readonly<Record<string, unknown>>, key: string, quoted: boolean) => argumentSlotIn(syntax, name, chosen, key, quoted),
    callSyntax: syntax,
    readCalls: (text: string) => readCalls(syntax, text),
  });
}

/**
 * The syntax without an end token the template writes after the calls (Gemma's `<start_function_response>`):
 * the model writes it to hand over, as it ends any turn; it is no part of the calls.
 */
function withoutEndOfTurn(syntax: CallSyntax, ends: readonly string[]): CallSyntax {
  const close = syntax.sectionClose.trimEnd();
  const end = ends.find((e) => e && close.endsWith(e));
  return end ? { ...syntax, sectionClose: close.slice(0, -end.length) } : syntax;
}

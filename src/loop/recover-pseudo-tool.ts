/**
 * Names a model uses when it "calls" its own reply as if it were a tool. Such a call carries the
 * answer in one of its string arguments.
 */
const PSEUDO_TOOL_NAMES: ReadonlySet<string> = new Set([
  'respond',
  'response',
  'answer',
  'final_answer',
  'reply',
  'message',
  'say',
  'speak',
  'tell',
  'text',
  'output',
  'content',
  'write',
]);

/** Argument keys most likely to hold the reply, in priority order. */
const REPLY_KEYS = ['response', 'text', 'content', 'message', 'answer', 'reply', 'output', 'result'];

/**
 * Rejects strings that are not prose meant for the user: JSON or Python literals, markup, and
 * echoes of a chat payload (`'role':`, `"messages":`), which a model may copy from its context.
 */
function isPlausibleReply(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const text = value.trim();
  if (text.length === 0) return false;
  if (/^[[{]/.test(text) || /^<[a-z!/]/i.test(text)) return false;
  if (/['"](?:role|messages|type|tool_calls)['"]\s*:/.test(text)) return false;
  return true;
}

/**
 * Recovers the answer text from a pseudo-tool call such as `respond({"text": "Hello!"})`: the
 * first plausible string among the usual reply keys, else the longest plausible string argument.
 * Returns undefined when the name is not a pseudo-tool or nothing plausible is there.
 */
export function recoverPseudoToolText(call: { name: string; arguments: Record<string, unknown> }): string | undefined {
  if (!PSEUDO_TOOL_NAMES.has(call.name.toLowerCase())) return undefined;
  for (const key of REPLY_KEYS) {
    const value = call.arguments[key];
    if (isPlausibleReply(value)) return value.trim();
  }
  const strings = Object.values(call.arguments).filter(isPlausibleReply);
  strings.sort((a, b) => b.length - a.length);
  return strings[0]?.trim();
}

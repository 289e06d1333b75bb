/** What the model and the user read of an MCP server's results: text, with the rest described in words. */

/** Most parts of one result turned into text (the rest are counted). */
const MAX_RESULT_PARTS = 64;
/** Most characters of text kept from one part of a result before the loop's own cap applies. */
const MAX_PART_CHARS = 100_000;

/** Text of one part, cut at {@link MAX_PART_CHARS} with a note saying how much there was. */
function bounded(text: string): string {
  return text.length <= MAX_PART_CHARS ? text : `${text.slice(0, MAX_PART_CHARS)}\n[cut: ${text.length.toLocaleString('en-US')} characters in all]`;
}

/** A content part of a call result. */
export type ResultPart = {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  resource?: { uri?: string; mimeType?: string; text?: string };
  uri?: string;
  name?: string;
  annotations?: { audience?: string[] };
};

/** Whether a part is meant for the model: one annotated for the user only is not given to it. */
const forModel = (part: ResultPart): boolean => !Array.isArray(part.annotations?.audience) || part.annotations.audience.includes('assistant');

/** Whether a text is the JSON of a value (MCP asks servers to repeat structured content as text). */
function isJsonOf(text: string | undefined, value: unknown): boolean {
  if (text === undefined) return false;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/**
 * Whether structured content only repeats what the text parts say: all its values are texts, each found in them.
 * server-filesystem sends a file's text again as `{ content: … }`, which the model read twice (issue 69). A value
 * of another kind (a number, a flag) is not looked for in the text: it is kept.
 */
function repeatsText(structured: unknown, text: string): boolean {
  const strings: string[] = [];
  const stack: unknown[] = [structured];
  while (stack.length) {
    const value = stack.pop();
    const children = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : undefined;
    if (typeof value === 'string') strings.push(value.trim());
    else if (!children) return false;
    // Bounded before it is spread: a server's list of a million values is not looked through.
    else if (strings.length + stack.length + children.length > 1_000) return false;
    else stack.push(...children);
  }
  return strings.length > 0 && strings.every((value) => text.includes(value));
}

/**
 * What the model reads of a call result: its text parts, the structured content as JSON where no
 * text part already carries it (servers repeat it as text, as MCP asks), images, audio and resources
 * described in words (a text model cannot see them); parts annotated for the user only are left out.
 */
export function mcpResultText(result: { content?: ResultPart[]; structuredContent?: unknown }): string {
  const all = (result.content ?? []).filter(forModel);
  const parts = all.slice(0, MAX_RESULT_PARTS).map((part) => {
    switch (part.type) {
      case 'text':
        return bounded(part.text ?? '');
      case 'image':
      case 'audio':
        return `[${part.type}: ${part.mimeType ?? 'unknown type'}, ${Math.round(((part.data?.length ?? 0) * 3) / 4 / 1024)} KB, not shown to this text model]`;
      case 'resource':
        return part.resource?.text !== undefined
          ? `[resource ${part.resource.uri ?? ''}]\n${bounded(part.resource.text)}`
          : `[resource ${part.resource?.uri ?? ''} (${part.resource?.mimeType ?? 'binary'}), not shown]`;
      case 'resource_link':
        return `[link: ${part.name ?? ''} ${part.uri ?? ''}]`;
      default:
        return `[${part.type} content, not shown]`;
    }
  });
  if (all.length > MAX_RESULT_PARTS) parts.push(`[${all.length - MAX_RESULT_PARTS} more parts not shown]`);
  const structured = result.structuredContent;
  const texts = all.flatMap((part) => (part.type === 'text' ? [part.text ?? ''] : []));
  if (structured !== undefined && !texts.some((text) => isJsonOf(text, structured)) && !repeatsText(structured, texts.join('\n'))) {
    parts.push(bounded(JSON.stringify(structured)));
  }
  return parts.filter(Boolean).join('\n');
}

/** The parts of a call result meant for the user only (`audience: ["user"]`), for the page to show beside the call. */
export function mcpUserParts(result: { content?: ResultPart[] }): ResultPart[] {
  return (result.content ?? []).filter((part) => !forModel(part));
}

/** The form's answer with each field the user left out given its default, as MCP's elicitation asks of a client. */
export function withElicitationDefaults(
  schema: { properties?: Record<string, Record<string, unknown>> },
  content: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const filled: Record<string, unknown> = { ...content };
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    if (!(name in filled) && field && 'default' in field) filled[name] = field.default;
  }
  return filled;
}

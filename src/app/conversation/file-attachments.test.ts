import { describe, expect, it } from 'vitest';
import { emptyConversation, DEFAULT_SETTINGS, type AppState } from '../state/app-state.ts';
import { attachmentRoom } from '../state/context-gauge.ts';
import { AttachmentFileError, MAX_FILE_BYTES, textOfFile } from './file-attachments.ts';

const file = (name: string, content: string | Uint8Array, size?: number) => {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return { name, size: size ?? bytes.length, arrayBuffer: async () => bytes.slice().buffer };
};

describe('files attached to a message (issue 44, item 6)', () => {
  it('reads text files of every kind as they are', async () => {
    expect(await textOfFile(file('notes.md', '# Notes\n\n- milk'))).toBe('# Notes\n\n- milk');
    expect(await textOfFile(file('sales.csv', '\uFEFFmonth,total\nJan,42\n'))).toBe('month,total\nJan,42\n');
    expect(await textOfFile(file('app.ts', 'export const x = 1;'))).toBe('export const x = 1;');
  });

  it("reads the encodings text files come in: UTF-16 by its mark (Windows' Unicode text) and Windows-1252 (older spreadsheets' CSV)", async () => {
    const utf16le = new Uint8Array([0xff, 0xfe, ...[...'Café,42\n'].flatMap((c) => [c.charCodeAt(0), 0])]);
    expect(await textOfFile(file('notes.txt', utf16le))).toBe('Café,42\n');
    const utf16be = new Uint8Array([0xfe, 0xff, ...[...'Zoë'].flatMap((c) => [0, c.charCodeAt(0)])]);
    expect(await textOfFile(file('name.txt', utf16be))).toBe('Zoë');
    // "Café – 5 €" in Windows-1252: é 0xE9, en dash 0x96, euro 0x80 (not UTF-8, so the UTF-8 reading fails).
    const cp1252 = new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x35, 0x20, 0x80, 0x0d, 0x0a]);
    expect(await textOfFile(file('prices.csv', cp1252))).toBe('Café – 5 €\r\n');
  });

  it('refuses what is not text, naming the file and what can be attached', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe]);
    await expect(textOfFile(file('photo.png', png))).rejects.toThrow(AttachmentFileError);
    await expect(textOfFile(file('photo.png', png))).rejects.toThrow(
      '“photo.png” is not a text file. Attach text (plain, Markdown, code, CSV, JSON) or a PDF.',
    );
    await expect(textOfFile(file('nul.txt', 'a\u0000b'))).rejects.toThrow(/is not a text file/);
    await expect(textOfFile(file('huge.txt', 'x', MAX_FILE_BYTES + 1))).rejects.toThrow(/“huge.txt” is larger than 25 MB/);
  });

  it("cuts to what the model's memory has room for: the budget less the conversation, the answer's room and what is attached", () => {
    const state = (over: Partial<AppState>): AppState =>
      ({
        conversation: emptyConversation('c'),
        attachments: [],
        settings: { ...DEFAULT_SETTINGS, maxNewTokens: 1024 },
        model: { phase: 'ready', files: {}, attempts: [], context: { tokens: 8192 } },
        ...over,
      }) as unknown as AppState;
    expect(attachmentRoom(state({}))).toBe((8192 - 1024 - 256) * 3);
    expect(attachmentRoom(state({ attachments: [{ name: 'a', from: 'f', text: 'x'.repeat(1000), chars: 1000 }] }))).toBe((8192 - 1024 - 256) * 3 - 1000);
    expect(attachmentRoom(state({ model: { phase: 'idle', files: {}, attempts: [] } }))).toBe(24_000);
    expect(attachmentRoom(state({ settings: { ...DEFAULT_SETTINGS, maxNewTokens: 8192 } }))).toBe(0);
  });
});

import type { ActionHandlers, AttachmentAction } from './app-actions.ts';
import type { AppState, Attachment } from './app-state.ts';
import { attachmentOf, charsInMessage, MAX_ATTACHMENT_CHARS } from '../conversation/attachment-fence.ts';
import { attachmentRoom } from './context-gauge.ts';
import type { SliceChange } from './state-writers.ts';

/** What the attachments slice needs of the page's store. */
export interface AttachmentsHost {
  state(): AppState;
  /** Writes this slice's own part of the page's state (see state-writers.ts). */
  set(change: SliceChange<'attachments'>): void;
  notify(text: string): void;
}

/**
 * The attachments of the next message (`state.attachments`): the one writer of them but for the MCP
 * client's resources, which it attaches through the same shape. A text, files the user chose (read and cut
 * to what the model's memory has room for), and taking one back out.
 */
export class AttachmentsSlice {
  /** The attachments slice's actions, which the store's one dispatch routes here (see app-actions.ts). */
  readonly actions: ActionHandlers<AttachmentAction> = {
    attach: ({ name, from, text }) => this.add({ name, from, text }),
    attachFiles: ({ files }) => this.track(files.map((file) => file.name).join(', '), this.addFiles(files)),
    detachAttachment: ({ index }) => this.host.set({ attachments: this.host.state().attachments.filter((_, i) => i !== index) }),
  };

  /** Reading now: files chosen, and long texts being indexed, for the next message. */
  private readonly reading = new Set<Promise<void>>();

  constructor(private readonly host: AttachmentsHost) {}

  /**
   * Once every file being read for the next message is read (or refused): a message sent meanwhile waits for
   * this, so a file never misses the message it was attached to and rides along with the next.
   */
  async settled(): Promise<void> {
    while (this.reading.size) await Promise.allSettled([...this.reading]);
  }

  /** Whether a file for the next message is still being read. */
  get busy(): boolean {
    return this.reading.size > 0;
  }

  /** Runs one read, shown by name as being read until it ends. */
  private track(name: string, work: Promise<void>): Promise<void> {
    this.host.set({ attachmentsReading: [...(this.host.state().attachmentsReading ?? []), name] });
    const done = work.finally(() => {
      this.reading.delete(done);
      const names = [...(this.host.state().attachmentsReading ?? [])];
      names.splice(names.indexOf(name), 1);
      this.host.set({ attachmentsReading: names.length ? names : undefined });
    });
    this.reading.add(done);
    return done;
  }

  /**
   * Attaches a text to the next message (fenced as data after it): the user's, or an MCP resource. One longer
   * than an attachment's share is indexed instead, for the model to search by passage.
   */
  add(input: { name: string; from: string; text: string }): void {
    if (input.text.length <= MAX_ATTACHMENT_CHARS) {
      this.host.set({ attachments: [...this.host.state().attachments, attachmentOf(input)] });
      return;
    }
    // Indexed in the files' worker; one it cannot read within its bounds is refused by name.
    void this.track(
      input.name,
      import('../conversation/document-attachments.ts')
        .then(({ indexedAttachment }) => indexedAttachment(input))
        .then(
          (attachment) => this.host.set({ attachments: [...this.host.state().attachments, attachment] }),
          (error: unknown) => this.refuse(`“${input.name}” was not attached: ${error instanceof Error ? error.message : String(error)}`),
        ),
    );
  }

  /** Takes the attachments out of the composer for the message being sent (empty when there are none). */
  take(): Attachment[] {
    const taken = [...this.host.state().attachments];
    if (taken.length) this.host.set({ attachments: [] });
    return taken;
  }

  /**
   * Reads files the user chose and attaches their text to the next message: whole where the model's memory has
   * room for it, else indexed for the model to search by passage (the message then carries its beginning and a
   * note); one that cannot be read is named, and the others still go.
   */
  private async addFiles(files: readonly { name: string; size: number; arrayBuffer(): Promise<ArrayBuffer> }[]): Promise<void> {
    this.host.set({ attachError: undefined });
    for (const file of files) {
      try {
        // Loaded with the first file, not with the page.
        const { textOfFile } = await import('../conversation/file-attachments.ts');
        const text = await textOfFile(file);
        const room = attachmentRoom(this.host.state());
        const input = { name: file.name, from: 'a file on this device', text };
        if (text.length <= room) {
          this.host.set({ attachments: [...this.host.state().attachments, attachmentOf(input, room)] });
          continue;
        }
        // Too long to read whole: kept and indexed, and each question reads the passages that answer it.
        const { indexedAttachment } = await import('../conversation/document-attachments.ts');
        const attachment = await indexedAttachment(input);
        if (room < charsInMessage(attachment)) {
          this.refuse(`“${file.name}” was not attached: the model's memory has no room left for it. Start a new conversation, or take an attachment out.`);
          continue;
        }
        this.host.set({ attachments: [...this.host.state().attachments, attachment] });
      } catch (error) {
        // A file the page cannot read says so by name, as does one its worker could not read within bounds; anything else (the browser could not read it) is said here.
        this.refuse(errorWords(file.name, error));
      }
    }
  }

  /** Says by the message box, and to a screen reader, why a file was not attached. */
  private refuse(why: string): void {
    this.host.set({ attachError: why });
    this.host.notify(why);
  }
}

/** Why a file was not attached, in words: its reader's own, which name the file or the bound it passed. */
function errorWords(name: string, error: unknown): string {
  if (error instanceof Error && error.name === 'AttachmentFileError') return error.message;
  if (error instanceof Error && error.name === 'WorkLimitError') return `“${name}” was not attached: ${error.message}`;
  return `Could not read ${name}: ${String(error)}`;
}

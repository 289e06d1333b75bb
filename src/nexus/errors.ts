/** The errors only the chat facade throws (each crosses the worker as itself). */
import { NexusError, registerErrorClass } from '../shared/errors.ts';

/** Thrown when `chat()` is called while another answer is still running on the same chat. */
export class ChatBusyError extends NexusError {
  override readonly name = 'ChatBusyError';
}

registerErrorClass(ChatBusyError, 'ChatBusyError');

/** Thrown by `chat()` and `continueAnswer()` for `messages` that do not form a consistent conversation, or leave nothing to continue. */
export class InvalidHistoryError extends NexusError {
  override readonly name = 'InvalidHistoryError';
}

registerErrorClass(InvalidHistoryError, 'InvalidHistoryError');

/** Thrown when a disposed chat is used. */
export class ChatDisposedError extends NexusError {
  override readonly name = 'ChatDisposedError';
}

registerErrorClass(ChatDisposedError, 'ChatDisposedError');

import { existsSync, renameSync, rmSync } from 'node:fs';

/**
 * Moves a folder built apart (`staging`) to `target` whole, so that no reader ever sees it half-written. Where two
 * runs built the same thing at once (`npm test`'s two lanes), the first to arrive wins: the other's copy is
 * removed and the one in place is used. Any other failure to move it is thrown.
 */
export function publishFolder(staging: string, target: string): void {
  try {
    renameSync(staging, target);
  } catch (error) {
    if (!existsSync(target)) throw error;
    rmSync(staging, { recursive: true, force: true });
  }
}

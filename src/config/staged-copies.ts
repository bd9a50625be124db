/**
 * The copy a writer stages beside a file before renaming it into place: `<file>.<pid>.<hex>.tmp`.
 * A process killed between the two (SIGKILL, a power cut) leaves its copy for good, and nothing
 * reads one; so the next writer of the file, under the file's lock, removes those of processes
 * that are gone.
 */
import { randomBytes } from 'node:crypto';
import { lstat, opendir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { processGone } from './process-gone.js';

/** Where this process stages a new version of `file`: the pid tells a later writer whether its maker is gone. */
export function stagedCopyPath(file: string): string {
  return `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * A copy younger than this is kept even when its pid names no process here: a writer of another
 * host (or container) sharing the folder may be between its write and its rename. Staging takes
 * milliseconds; the lock counts a holder it cannot tell apart as gone after as long.
 */
const LEFT_FOR_MS = 30_000;

/** Staged copies looked at per write: a folder holding thousands is cleared over several writes, none of them long. */
const MAX_LOOKED_AT = 32;

const STAGED_BY = /^([1-9]\d{0,9})\.[0-9a-f]{1,64}\.tmp$/;

/**
 * Removes `file`'s staged copies left by processes of this machine that are gone, once they are
 * older than LEFT_FOR_MS. Call it holding the file's lock, so no writer of it is between its write
 * and its rename. Never fails the write it comes before: what cannot be removed stays.
 */
export async function removeLeftStagedCopies(file: string): Promise<void> {
  const folder = dirname(file);
  const prefix = `${basename(file)}.`;
  let lookedAt = 0;
  try {
    for await (const entry of await opendir(folder)) {
      if (!entry.name.startsWith(prefix)) continue;
      const pid = STAGED_BY.exec(entry.name.slice(prefix.length))?.[1];
      if (pid === undefined) continue;
      if (++lookedAt > MAX_LOOKED_AT) break;
      if (!processGone(Number(pid))) continue;
      const copy = join(folder, entry.name);
      const stats = await lstat(copy).catch(() => undefined);
      // A copy gone meanwhile, or one that cannot be removed, is left for a later write.
      if (stats?.isFile() && Date.now() - stats.mtimeMs > LEFT_FOR_MS) await rm(copy, { force: true }).catch(() => {});
    }
  } catch {
    // The folder cannot be listed: nothing is removed.
  }
}

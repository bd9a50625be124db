/**
 * The copy a writer stages beside a file before renaming it into place: `<file>.<pid>.<hex>.tmp`.
 * A process killed between the two (SIGKILL, a power cut) leaves its copy for good, and nothing
 * reads one; so the next writer of the file, under the file's lock, removes those of processes
 * that are gone.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, opendirSync, rmSync, type Dir } from 'node:fs';
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

/** `<pid>.<hex>.tmp`: 12 hex digits as stagedCopyPath writes them, 8 as an older login writer did. */
const STAGED_BY = /^([1-9]\d{0,9})\.(?:[0-9a-f]{8}|[0-9a-f]{12})\.tmp$/;

/**
 * Removes `file`'s staged copies left by processes of this machine that are gone, once they are
 * older than LEFT_FOR_MS. Call it holding the file's lock where it has one, so no writer of it is
 * between its write and its rename (the age covers writers of files without a lock). Never fails
 * the write it comes before: what cannot be removed stays. Synchronous, as some writers are (a
 * login, the vectors, a key): a folder of a few files, at most MAX_LOOKED_AT copies looked at.
 */
export function removeLeftStagedCopies(file: string): void {
  const folder = dirname(file);
  const prefix = `${basename(file)}.`;
  let lookedAt = 0;
  let listing: Dir | undefined;
  try {
    listing = opendirSync(folder);
    for (let entry = listing.readSync(); entry !== null; entry = listing.readSync()) {
      if (!entry.name.startsWith(prefix)) continue;
      const pid = STAGED_BY.exec(entry.name.slice(prefix.length))?.[1];
      if (pid === undefined) continue;
      if (++lookedAt > MAX_LOOKED_AT) break;
      if (!processGone(Number(pid))) continue;
      const copy = join(folder, entry.name);
      const stats = lstatSync(copy, { throwIfNoEntry: false });
      if (stats?.isFile() && Date.now() - stats.mtimeMs > LEFT_FOR_MS) removeQuietly(copy);
    }
  } catch {
    // The folder cannot be listed: nothing more is removed.
  } finally {
    listing?.closeSync();
  }
}

/** A copy that cannot be removed (its folder not ours to change) is left, and the others are still looked at. */
function removeQuietly(copy: string): void {
  try {
    rmSync(copy, { force: true });
  } catch {
    // Left for a later write.
  }
}

/**
 * A lock file beside a file that several processes rewrite (the approvals): create it with
 * O_EXCL, run, remove it. Waits a bounded time; a lock left behind by a crashed process is taken
 * over once it is older than `staleMs`.
 */
import { open, rm, stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

export interface FileLockOptions {
  /** Give up after this long. Default 10 s. */
  timeoutMs?: number;
  /** A lock older than this belongs to a process that died. Default 30 s. */
  staleMs?: number;
  /** Once aborted, a held lock is not waited for any longer: the wait gives up as at its timeout. */
  signal?: AbortSignal;
}

/** The lock stayed held by another process (fresh, so not left by a dead one) for the whole wait. */
export class FileLockHeld extends Error {
  constructor(readonly lockPath: string) {
    super(`${lockPath} is held by another process`);
    this.name = 'FileLockHeld';
  }
}

const RETRY_MS = 10;

export async function withFileLock<T>(lockPath: string, run: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, staleMs = 30_000, signal } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await (await open(lockPath, 'wx', 0o600)).close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = await stat(lockPath).catch(() => undefined);
      if (held && Date.now() - held.mtimeMs > staleMs) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline || signal?.aborted) throw new FileLockHeld(lockPath);
      // An abort ends the pause early; the next turn tries the lock once more, then gives up.
      await delay(RETRY_MS + Math.floor(Math.random() * RETRY_MS), undefined, { signal }).catch(() => {});
    }
  }
  try {
    return await run();
  } finally {
    await rm(lockPath, { force: true });
  }
}

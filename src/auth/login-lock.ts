/**
 * One login of a server at a time, across processes (two terminals, or `login` while `serve`
 * logs in). Each login may register its own client, and the file keeps one: a second login's
 * registration would overwrite the first's before the first redeems its code, which it then could
 * not. The second waits for the first instead, and then reuses the client the first registered.
 */
import { FileLockHeld, withFileLock } from '../config/file-lock.js';
import { quoted } from '../../machines/control-characters.js';

export interface LoginLockOptions {
  /** How long to wait for another login of the server. */
  waitMs: number;
  /** How long a login may hold the lock: past this the lock is taken over, even from a live holder (file-lock.ts counts it abandoned). */
  holdMs: number;
  signal?: AbortSignal;
  /** Says once that this login waits for another. */
  print: (line: string) => void;
}

export async function withLoginLock<T>(server: string, loginFile: string, run: () => Promise<T>, options: LoginLockOptions): Promise<T> {
  const lockPath = `${loginFile}.login-lock`;
  let running = false;
  const started = () => {
    running = true;
    return run();
  };
  try {
    return await withFileLock(lockPath, started, { timeoutMs: 0, staleMs: options.holdMs, signal: options.signal });
  } catch (error) {
    if (running || !(error instanceof FileLockHeld)) throw error;
    options.print(`Another login of MCP server ${quoted(server)} is running${holder(error)}: waiting for it to end (finish or cancel it there).`);
  }
  try {
    return await withFileLock(lockPath, started, { timeoutMs: options.waitMs, staleMs: options.holdMs, signal: options.signal });
  } catch (error) {
    if (running || !(error instanceof FileLockHeld) || options.signal?.aborted) throw error;
    throw new Error(
      `another login of MCP server ${quoted(server)} is running${holder(error)} and did not end within ${duration(options.waitMs)}; finish or cancel it, then run the login again (its lock is ${lockPath})`,
      { cause: error },
    );
  }
}

function holder(error: FileLockHeld): string {
  return error.holderPid === undefined ? '' : ` (process ${error.holderPid})`;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

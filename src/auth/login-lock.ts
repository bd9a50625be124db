/**
 * One login of a server at a time, across processes (two terminals, or `login` while `serve`
 * logs in). Each login may register its own client, and the file keeps one: a second login's
 * registration would overwrite the first's before the first redeems its code, which it then could
 * not. The second waits for the first instead, and then reuses the client the first registered.
 * A logout takes the same lock: run beside a login, it would be undone when the login stores its tokens.
 */
import { FileLockHeld, withFileLock } from '../config/file-lock.js';
import { quoted } from '../../machines/control-characters.js';

export interface LoginLockOptions {
  /** How long to wait for another login of the server. */
  waitMs: number;
  /**
   * A lock not stamped anew for this long is abandoned (its holder, of another host, died). A live
   * holder stamps its lock every third of it, so a login running longer keeps it.
   */
  holdMs: number;
  signal?: AbortSignal;
  /** Says once that this login waits for another. */
  print: (line: string) => void;
}

export async function withLoginLock<T>(server: string, loginFile: string, run: () => Promise<T>, options: LoginLockOptions): Promise<T> {
  let running = false;
  const started = () => {
    running = true;
    return run();
  };
  const lockPath = loginLockPath(loginFile);
  try {
    return await withFileLock(lockPath, started, { timeoutMs: 0, staleMs: options.holdMs, signal: options.signal, keepFresh: true });
  } catch (error) {
    if (running || !(error instanceof FileLockHeld)) throw error;
    options.print(`Another login of MCP server ${quoted(server)} is running${holder(error)}: waiting for it to end (finish or cancel it there).`);
  }
  try {
    return await withFileLock(lockPath, started, { timeoutMs: options.waitMs, staleMs: options.holdMs, signal: options.signal, keepFresh: true });
  } catch (error) {
    if (running || !(error instanceof FileLockHeld) || options.signal?.aborted) throw error;
    throw new Error(
      `another login of MCP server ${quoted(server)} is running${holder(error)} and did not end within ${duration(options.waitMs)}; finish or cancel it, then run the login again (its lock is ${lockPath})`,
      { cause: error },
    );
  }
}

/**
 * Runs `run` (a logout) unless a login of the server is running: refused at once, not waited for.
 * A person at a terminal who logs out while a login waits for the browser most likely means to
 * stop that login, which only they can do there; waiting up to its timeout, then deleting the
 * tokens it just stored, would help no one.
 */
export async function withoutLoginRunning<T>(server: string, loginFile: string, run: () => Promise<T>, holdMs: number): Promise<T> {
  let running = false;
  const started = () => {
    running = true;
    return run();
  };
  try {
    return await withFileLock(loginLockPath(loginFile), started, { timeoutMs: 0, staleMs: holdMs });
  } catch (error) {
    if (running || !(error instanceof FileLockHeld)) throw error;
    throw new Error(
      `a login of MCP server ${quoted(server)} is running${holder(error)}; finish or cancel it there, then log out again (logged out now, the login would store its tokens again when it ends)`,
      { cause: error },
    );
  }
}

function loginLockPath(loginFile: string): string {
  return `${loginFile}.login-lock`;
}

function holder(error: FileLockHeld): string {
  return error.holderPid === undefined ? '' : ` (process ${error.holderPid})`;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

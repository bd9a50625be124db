/**
 * A lock file beside a file that several processes rewrite (the approvals, a config the CLI edits,
 * the manifest index, the task journal): create it with O_EXCL, run, remove it. The lock names its
 * holder (pid and host), so a lock left by a process of this machine that has since died is taken
 * over at once; one whose holder cannot be told (another host, an older lock with no name) only
 * once it is older than `staleMs`. Of several waiters taking over the same lock, one does
 * (`removeAbandoned`). Waits a bounded time. A holder that may run longer than `staleMs` keeps its
 * lock fresh (`keepFresh`); a holder removes only its own lock, never one taken over since.
 */
import { hostname } from 'node:os';
import { constants } from 'node:fs';
import { open, rm, stat, utimes } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { processGone } from './process-gone.js';

export interface FileLockOptions {
  /** Give up after this long. Default 10 s. */
  timeoutMs?: number;
  /** A lock older than this belongs to a process that died. Default 30 s. */
  staleMs?: number;
  /** Once aborted, a held lock is not waited for any longer: the wait gives up as at its timeout. */
  signal?: AbortSignal;
  /**
   * The holder stamps the lock's time anew every third of `staleMs` while it runs, so a holder that
   * runs longer than `staleMs` (a login waiting for a person) is not taken for dead, here or on
   * another host sharing the folder.
   */
  keepFresh?: boolean;
  /**
   * An empty lock past the moment between its creation and the writing of its holder is taken
   * over as abandoned, instead of waited for until `staleMs`: `takeLock` writes the holder right
   * after creating the file, so an empty lock seconds old is no writer about to name itself. For a
   * lock waited for long (a refresh's), where one left by a killed process would hold up every waiter.
   */
  emptyIsAbandoned?: boolean;
  /** Told once, when the lock is still held by another after `afterMs`: the holder as it names itself (`pid@host`), if it does. */
  onLongWait?: { afterMs: number; tell: (holder: string | undefined) => void };
}

/** The lock stayed held by another process (alive, or fresh and of another host) for the whole wait. */
export class FileLockHeld extends Error {
  constructor(
    readonly lockPath: string,
    /** The holder's process id, when the lock names one of this machine. */
    readonly holderPid?: number,
    /** The lock is an empty file seconds old: it names no holder, most likely a writer that failed left it. */
    readonly empty = false,
  ) {
    super(
      empty
        ? `${lockPath} is an empty lock that names no holder (left by a process that failed or was killed while taking it)`
        : `${lockPath} is held by another process${holderPid === undefined ? '' : ` (pid ${holderPid})`}`,
    );
    this.name = 'FileLockHeld';
  }
}

/** A folder stands where the lock goes: waiting would never end, and it is not ours to remove. */
class LockIsFolder extends Error {
  constructor(readonly lockPath: string) {
    super(`${lockPath} is a folder, not a lock file, so nothing can take the lock: move it away, then try again`);
    this.name = 'LockIsFolder';
  }
}

const RETRY_MS = 10;

export async function withFileLock<T>(lockPath: string, run: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, staleMs = 30_000, signal, keepFresh = false, emptyIsAbandoned = false, onLongWait } = options;
  const started = Date.now();
  const deadline = started + timeoutMs;
  const staleness: Staleness = { staleMs, emptyIsAbandoned };
  let told = false;
  let ours: LockIdentity;
  for (;;) {
    try {
      ours = await takeLock(lockPath);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A folder there (a cloned project can hold one by that name) is no lock: no holder ever removes it, nor may we.
      if ((await stat(lockPath).catch(() => undefined))?.isDirectory()) throw new LockIsFolder(lockPath);
      const holder = await lockHolder(lockPath);
      if ((await abandoned(lockPath, holder, staleness)) && (await removeAbandoned(lockPath, staleness))) continue;
      if (Date.now() > deadline || signal?.aborted) {
        throw new FileLockHeld(lockPath, typeof holder === 'number' ? holder : undefined, await leftEmpty(lockPath, holder));
      }
      if (onLongWait && !told && Date.now() - started >= onLongWait.afterMs) {
        told = true;
        const named = holderNamed(await firstBytes(lockPath, 300));
        onLongWait.tell(named && `${named.pid}@${named.host}`);
      }
      // An abort ends the pause early; the next turn tries the lock once more, then gives up.
      await delay(RETRY_MS + Math.floor(Math.random() * RETRY_MS), undefined, { signal }).catch(() => {});
    }
  }
  const refresh = keepFresh ? setInterval(() => void stampIfOurs(lockPath, ours), Math.max(1, Math.floor(staleMs / 3))) : undefined;
  refresh?.unref();
  try {
    return await run();
  } finally {
    clearInterval(refresh);
    if (await isOurs(lockPath, ours)) await rm(lockPath, { force: true });
  }
}

/** The lock file this holder created: a lock taken over since is another file, naming another holder. */
interface LockIdentity {
  dev: number;
  ino: number;
}

/**
 * Creates the lock and writes its holder. When that write fails (a full disk, a quota), the lock
 * goes again: left empty, it would name no holder and hold up every writer until it is stale.
 */
async function takeLock(lockPath: string): Promise<LockIdentity> {
  const file = await open(lockPath, 'wx', 0o600);
  let identity: LockIdentity;
  try {
    await file.writeFile(holderText());
    const { dev, ino } = await file.stat();
    identity = { dev, ino };
  } catch (error) {
    await file.close().catch(() => {});
    await rm(lockPath, { force: true });
    throw error;
  }
  await file.close();
  return identity;
}

/**
 * Whether the lock is still the file this holder created and names it: both, since a new file may
 * get the number of a removed one, and another holder of this process names the same pid.
 */
async function isOurs(lockPath: string, ours: LockIdentity): Promise<boolean> {
  const now = await stat(lockPath).catch(() => undefined);
  return now !== undefined && now.dev === ours.dev && now.ino === ours.ino && (await firstBytes(lockPath, 300)) === holderText();
}

async function stampIfOurs(lockPath: string, ours: LockIdentity): Promise<void> {
  if (!(await isOurs(lockPath, ours))) return;
  const now = new Date();
  await utimes(lockPath, now, now).catch(() => {});
}

/**
 * An empty lock past the moment between its creation and the writing of its holder: no writer
 * is about to name itself there, it was left by a write that failed or by a process killed
 * in that moment, and the one waiting should be told it can remove it.
 */
const EMPTY_LOCK_SETTLED_MS = 3_000;

async function leftEmpty(lockPath: string, holder: Awaited<ReturnType<typeof lockHolder>>): Promise<boolean> {
  if (holder !== 'unknown') return false;
  const held = await stat(lockPath).catch(() => undefined);
  return held !== undefined && held.size === 0 && Date.now() - held.mtimeMs > EMPTY_LOCK_SETTLED_MS;
}

interface Staleness {
  staleMs: number;
  emptyIsAbandoned: boolean;
}

/**
 * Whether the lock's holder died: it names a process of this machine that is gone, it is older
 * than `staleMs`, or (`emptyIsAbandoned`) it is empty past the moment its holder writes its name.
 */
async function abandoned(lockPath: string, holder: Awaited<ReturnType<typeof lockHolder>>, { staleMs, emptyIsAbandoned }: Staleness): Promise<boolean> {
  if (holder === 'gone') return true;
  if (emptyIsAbandoned && (await leftEmpty(lockPath, holder))) return true;
  const held = await stat(lockPath).catch(() => undefined);
  return held !== undefined && Date.now() - held.mtimeMs > staleMs;
}

/**
 * Removes an abandoned lock under a second one, `<lock>.takeover`: several waiters may see the same
 * dead holder at once, and without it the last to remove would remove the lock the first has just
 * taken. Under the second lock the holder is read again, so only the abandoned lock goes. False
 * when another waiter is taking over (wait, then look again). A second lock left by a process that
 * died in those few instructions is abandoned in its turn, and removed the same way, under its own
 * `.takeover`: removed unguarded, a waiter that read its dead holder could remove the second lock
 * another waiter had taken since, and two would take the lock over at once.
 */
async function removeAbandoned(lockPath: string, staleness: Staleness): Promise<boolean> {
  const guardPath = `${lockPath}.takeover`;
  const guard = await open(guardPath, 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
    return undefined;
  });
  if (!guard) {
    if (await abandoned(guardPath, await lockHolder(guardPath), staleness)) await removeAbandoned(guardPath, staleness);
    return false;
  }
  try {
    try {
      await guard.writeFile(holderText());
    } finally {
      await guard.close();
    }
    if (await abandoned(lockPath, await lockHolder(lockPath), staleness)) await rm(lockPath, { force: true });
    return true;
  } finally {
    await rm(guardPath, { force: true });
  }
}

function holderText(): string {
  return `${process.pid}@${hostname()}\n`;
}

/**
 * Who holds the lock: the pid of a live process of this machine, `gone` when that process has
 * died, `unknown` when the lock names no one here (another host, an empty lock still being
 * written or left by an older version, a file that went away meanwhile).
 */
async function lockHolder(lockPath: string): Promise<number | 'gone' | 'unknown'> {
  const named = holderNamed(await firstBytes(lockPath, 300));
  if (!named || named.host !== hostname()) return 'unknown';
  return processGone(named.pid) ? 'gone' : named.pid;
}

/** The holder a lock's text names (`pid@host` and a newline, as `holderText` writes it). */
function holderNamed(text: string): { pid: number; host: string } | undefined {
  const match = /^(?<pid>[1-9]\d{0,9})@(?<host>[^\n]{1,255})\n$/.exec(text)?.groups;
  return match?.pid && match.host ? { pid: Number(match.pid), host: match.host } : undefined;
}

/**
 * At most `limit` bytes of the file as text; none when it cannot be read (a lock is a name, never
 * large) or is no regular file: opening a FIFO planted at the lock would wait for a writer for good.
 */
async function firstBytes(path: string, limit: number): Promise<string> {
  const file = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(() => undefined);
  if (!file) return '';
  try {
    if (!(await file.stat()).isFile()) return '';
    const { buffer, bytesRead } = await file.read(Buffer.alloc(limit), 0, limit, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await file.close();
  }
}

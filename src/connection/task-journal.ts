/**
 * The tasks in flight, kept in a small file so a later process can collect their results: SEP-2663
 * ("Clients SHOULD persist task IDs to durable storage so that polling can resume after a crash or
 * restart"). An entry names the server, the task id, the tool and when the call began; never the
 * call's arguments. A task id may be the server's bearer token for its state (SEP-2663, "Task ID
 * unguessability"), so the file is written with mode 0600, replaced atomically, and ids are never
 * logged. At most MAX_UNFINISHED_TASKS entries: the oldest go first.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FileLockHeld, withFileLock, type FileLockOptions } from '../config/file-lock.js';
import { homeFolder } from '../config/home-folder.js';
import { readRegularFileSync } from '../config/read-config-file.js';
import { stderrLogger, type Logger } from '../logger.js';

/** A task a call became, not yet seen to its end (`McpConnectionManager.resumeTask` follows it). */
export interface UnfinishedTask {
  server: string;
  taskId: string;
  tool: string;
  /** ISO time the call began. */
  startedAt: string;
}

/** The most tasks the file keeps; a longer list loses its oldest. */
export const MAX_UNFINISHED_TASKS = 100;

/** A bigger file is not read (someone else's file, or a runaway): no tasks are known instead. */
const MAX_FILE_BYTES = 256 * 1024;

/** `~/.ai-zen/mcp-tasks.json`, beside the manifest index. Throws when HOME is empty or relative (see home-folder.ts): pass the path then. */
export function defaultTaskJournalPath(): string {
  return join(homeFolder(), '.ai-zen', 'mcp-tasks.json');
}

/**
 * A lock held while one change is made: a holder keeps it for one read and one write of a small
 * file, so a lock this old was left by a process that died holding it; a writer gives up for now
 * rather than wait longer, and tries again with the next change.
 */
const LOCK = { staleMs: 5_000, timeoutMs: 10_000 } as const;

/** How long `close` (the manager's `dispose`) waits for a held lock before giving up what is not written. */
export const CLOSE_WAIT_MS = 1_000;

/**
 * The changes kept unwritten while the file cannot be written (two per task): past this, the
 * oldest go, as the file loses its oldest entries. A long-lived process never grows without bound.
 */
const MAX_PENDING_CHANGES = 4 * MAX_UNFINISHED_TASKS;

type Change = { begun: UnfinishedTask } | { ended: Pick<UnfinishedTask, 'server' | 'taskId'> };

export interface TaskJournalOptions {
  /** Where a write that could not be made is told. Default: stderr. */
  logger?: Logger;
  /** The lock's stale age and wait; tests shorten the wait. */
  lock?: Pick<FileLockOptions, 'staleMs' | 'timeoutMs'>;
}

/**
 * Several processes may change the file at once (each manager with the same HOME): a change is
 * made under a lock file beside it (src/config/file-lock.ts) by reading the file, applying it and
 * renaming a new file into place, so none is lost. Changes are written in the background, in
 * order, those made meanwhile in one write; until then this process reads them from memory. A
 * write that cannot be made (the lock held throughout, a full disk) is warned of once and its
 * changes kept for the next; only `close` gives them up, saying which tasks a later process will
 * not find.
 */
export class TaskJournal {
  private pending: Change[] = [];
  private writing: Promise<void> = Promise.resolve();
  /** A write is queued and not begun: a change made now is written by it. */
  private writeQueued = false;
  private readonly logger: Logger;
  private readonly lock: FileLockOptions;
  /** Set by `close`: a write that fails from then on gives its changes up. */
  private closed = false;
  /** Aborted by `close` once it has waited long enough: a held lock is waited for no longer. */
  private readonly closing = new AbortController();
  /** Warned already that writes fail: one warning until a write succeeds again. */
  private failing = false;

  constructor(
    readonly path: string = defaultTaskJournalPath(),
    options: TaskJournalOptions = {},
  ) {
    this.logger = options.logger ?? stderrLogger;
    this.lock = { ...LOCK, ...options.lock, signal: this.closing.signal };
  }

  /** The tasks recorded and not yet ended, oldest first. */
  unfinished(): UnfinishedTask[] {
    return applied(this.pending, this.onDisk());
  }

  /** Records a task; one recorded already (being resumed) keeps its entry. Resolves once written, or put off. */
  begun(task: UnfinishedTask): Promise<void> {
    return this.change({ begun: task });
  }

  /** Resolves once written, or put off. */
  ended(task: Pick<UnfinishedTask, 'server' | 'taskId'>): Promise<void> {
    return this.change({ ended: task });
  }

  /**
   * Writes what is still pending, waiting at most `withinMs` for a held lock; what is not written
   * then is given up and named in a warning (server, tool and start; never a task id).
   */
  async close(withinMs: number = CLOSE_WAIT_MS): Promise<void> {
    this.closed = true;
    const giveUp = setTimeout(() => this.closing.abort(), withinMs);
    try {
      await this.change();
    } finally {
      clearTimeout(giveUp);
    }
  }

  private change(change?: Change): Promise<void> {
    if (change) this.pending.push(change);
    // One write waits behind the one under way and takes every change made meanwhile: a lock held
    // for long costs one more wait, not one per change.
    if (!this.writeQueued) {
      this.writeQueued = true;
      this.writing = this.writing.then(() => {
        this.writeQueued = false;
        return this.writePending();
      });
    }
    return this.writing;
  }

  private async writePending(): Promise<void> {
    if (this.pending.length === 0) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      await withFileLock(
        `${this.path}.lock`,
        async () => {
          // One synchronous step: this process never reads the changes neither pending nor written.
          const written = this.pending.length;
          this.write(applied(this.pending, this.onDisk()));
          this.pending.splice(0, written);
        },
        this.lock,
      );
      this.failing = false;
    } catch (error) {
      // A journal that cannot be written costs only the resume after a restart, never the call.
      if (this.closed) this.giveUpPending(error);
      else this.putOff(error);
    }
  }

  private putOff(error: unknown): void {
    this.pending.splice(0, this.pending.length - MAX_PENDING_CHANGES);
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(`The task journal ${this.path} could not be written (${reasonOf(error)}): its changes are kept in memory and written with the next one.${adviceFor(error)}`);
  }

  private giveUpPending(error: unknown): void {
    const begun = this.pending.flatMap((change) => ('begun' in change ? [change.begun] : []));
    const ended = this.pending.length - begun.length;
    this.pending = [];
    const lost = [
      ...begun.map((task) => `tool ${task.tool} of server ${task.server}, begun ${task.startedAt}, not recorded (a later process cannot resume it)`),
      ...(ended > 0 ? [`${ended} ended task${ended === 1 ? '' : 's'} still listed (a resume will find the server no longer knows ${ended === 1 ? 'it' : 'them'})`] : []),
    ];
    this.logger.warn(`The task journal ${this.path} could not be written (${reasonOf(error)}): ${lost.join('; ')}.${adviceFor(error)}`);
  }

  /**
   * Why the file is there but holds no list this process can read (not JSON, not a list, too big,
   * unreadable); undefined when it is read, or absent. Its tasks are then neither listed nor resumed.
   */
  unreadable(): string | undefined {
    return this.readDisk().unreadable;
  }

  private onDisk(): UnfinishedTask[] {
    return this.readDisk().tasks;
  }

  private readDisk(): { tasks: UnfinishedTask[]; unreadable?: string } {
    const read = readRegularFileSync(this.path, MAX_FILE_BYTES);
    if (read.kind === 'missing') return { tasks: [] };
    if (read.kind === 'unreadable') return { tasks: [], unreadable: read.bytes === undefined ? `it ${read.reason}` : `it is ${read.bytes} bytes, over the ${MAX_FILE_BYTES} read` };
    try {
      const parsed: unknown = JSON.parse(read.bytes.toString('utf8'));
      return Array.isArray(parsed) ? { tasks: parsed.filter(isUnfinishedTask) } : { tasks: [], unreadable: 'it is not a list of tasks' };
    } catch {
      return { tasks: [], unreadable: 'it is not valid JSON' };
    }
  }

  private write(tasks: UnfinishedTask[]): void {
    const staged = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(staged, JSON.stringify(tasks), { mode: 0o600 });
    renameSync(staged, this.path);
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function adviceFor(error: unknown): string {
  return error instanceof FileLockHeld ? ` If no other process is writing it, remove ${error.lockPath}.` : '';
}

function applied(changes: Change[], tasks: UnfinishedTask[]): UnfinishedTask[] {
  let result = tasks;
  for (const change of changes) {
    if ('begun' in change) {
      if (!result.some((entry) => sameTask(entry, change.begun))) result = [...result, change.begun].slice(-MAX_UNFINISHED_TASKS);
    } else {
      result = result.filter((entry) => !sameTask(entry, change.ended));
    }
  }
  return result;
}

function sameTask(a: Pick<UnfinishedTask, 'server' | 'taskId'>, b: Pick<UnfinishedTask, 'server' | 'taskId'>): boolean {
  return a.server === b.server && a.taskId === b.taskId;
}

function isUnfinishedTask(value: unknown): value is UnfinishedTask {
  if (typeof value !== 'object' || value === null) return false;
  const { server, taskId, tool, startedAt } = value as Record<string, unknown>;
  return typeof server === 'string' && typeof taskId === 'string' && typeof tool === 'string' && typeof startedAt === 'string';
}

/**
 * The tasks in flight, kept in a small file so a later process can collect their results: SEP-2663
 * ("Clients SHOULD persist task IDs to durable storage so that polling can resume after a crash or
 * restart"). An entry names the server, the task id, the tool and when the call began; never the
 * call's arguments. A task id may be the server's bearer token for its state (SEP-2663, "Task ID
 * unguessability"), so the file is written with mode 0600, replaced atomically, and ids are never
 * logged.
 *
 * One file serves every manager of a home folder, and so possibly many users of one process: each
 * entry also holds a keyed fingerprint of the server definition its call ran on, credentials
 * included (`definitionFingerprint`, keyed by a 0600 file beside the journal, so the journal alone
 * lets no one test guesses of the values; with the manager's `oauth.dir`, its stored logins'). A manager lists and resumes only the entries of its own
 * definitions: a later process with the same config finds its tasks, another user's manager (other
 * env or headers) does not. At most MAX_UNFINISHED_TASKS entries a definition (the oldest go
 * first), so one user's tasks never push out another's; MAX_JOURNAL_ENTRIES in all.
 */
import { createHmac } from 'node:crypto';
import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FileLockHeld, withFileLock, type FileLockOptions } from '../config/file-lock.js';
import { removeLeftStagedCopies, stagedCopyPath } from '../config/staged-copies.js';
import { homeFolder } from '../config/home-folder.js';
import { readRegularFileSync } from '../config/read-config-file.js';
import { stderrLogger, type Logger } from '../logger.js';
import { definitionFingerprint, loadOrCreateKey } from '../config/definition-fingerprint.js';
import type { McpServerConfig } from '../../machines/types.js';

/** A task a call became, not yet seen to its end (`McpConnectionManager.resumeTask` follows it). */
export interface UnfinishedTask {
  server: string;
  taskId: string;
  tool: string;
  /** ISO time the call began. */
  startedAt: string;
}

/** An entry of the file: a task and the fingerprint of the definition it ran on (none in files written before fingerprints). */
interface JournalEntry extends UnfinishedTask {
  definition?: string;
}

/** What a call's task follow records: begun and ended, stamped with its server's definition. */
export interface TaskRecorder {
  begun(task: UnfinishedTask): Promise<void>;
  ended(task: Pick<UnfinishedTask, 'server' | 'taskId'>): Promise<void>;
}

/** The most tasks the file keeps of one server definition; a longer list loses its oldest. */
export const MAX_UNFINISHED_TASKS = 100;

/** The most tasks the file keeps in all (ten definitions' worth): past this, the oldest go, whoever's. */
export const MAX_JOURNAL_ENTRIES = 10 * MAX_UNFINISHED_TASKS;

/** A bigger file is not read (someone else's file, or a runaway): no tasks are known instead. Fits MAX_JOURNAL_ENTRIES of the longest task ids. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

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

type Change = { begun: JournalEntry } | { ended: Pick<JournalEntry, 'server' | 'taskId' | 'definition'> };

export interface TaskJournalOptions {
  /** Where a write that could not be made is told. Default: stderr. */
  logger?: Logger;
  /** The lock's stale age and wait; tests shorten the wait. */
  lock?: Pick<FileLockOptions, 'staleMs' | 'timeoutMs'>;
  /**
   * The folder of the manager's stored OAuth logins when not the default (`oauth.dir`): the login
   * is part of a server's credentials, so one definition used with two users' folders is two.
   */
  oauthDir?: string;
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
  /** The fingerprints' key, read (or made) at the first fingerprint; undefined after a failure was warned of. */
  private key?: Buffer | null;
  private readonly oauthDir?: string;

  constructor(
    readonly path: string = defaultTaskJournalPath(),
    options: TaskJournalOptions = {},
  ) {
    this.logger = options.logger ?? stderrLogger;
    this.oauthDir = options.oauthDir === undefined ? undefined : resolve(options.oauthDir);
    this.lock = { ...LOCK, ...options.lock, signal: this.closing.signal };
  }

  /** Every task recorded and not yet ended, whoever's, oldest first (`mcp-statechart tasks`). */
  unfinished(): UnfinishedTask[] {
    return applied(this.pending, this.onDisk()).map(withoutDefinition);
  }

  /**
   * Of `unfinished()`, those a version from before fingerprints recorded: no manager lists or
   * resumes them (none can tell whose they are), so they stay until `pruneOlderVersion`.
   */
  olderVersionTasks(): UnfinishedTask[] {
    return applied(this.pending, this.onDisk())
      .filter((entry) => entry.definition === undefined)
      .map(withoutDefinition);
  }

  /** Removes the entries of `olderVersionTasks()` from the file, under its lock; resolves with how many went. */
  async pruneOlderVersion(): Promise<number> {
    if (this.onDisk().every((entry) => entry.definition !== undefined)) return 0;
    return withFileLock(
      `${this.path}.lock`,
      async () => {
        removeLeftStagedCopies(this.path);
        const entries = this.onDisk();
        const kept = entries.filter((entry) => entry.definition !== undefined);
        if (kept.length < entries.length) this.write(kept);
        return entries.length - kept.length;
      },
      this.lock,
    );
  }

  /** The tasks recorded and not yet ended on the definitions `definitionOf` gives (a manager's own servers), oldest first. */
  unfinishedOf(definitionOf: (server: string) => McpServerConfig | undefined): UnfinishedTask[] {
    const fingerprints = new Map<string, string | undefined>();
    const fingerprintOf = (server: string) => {
      if (!fingerprints.has(server)) {
        const config = definitionOf(server);
        fingerprints.set(server, config && this.fingerprint(config));
      }
      return fingerprints.get(server);
    };
    return applied(this.pending, this.onDisk())
      .filter((entry) => entry.definition !== undefined && entry.definition === fingerprintOf(entry.server))
      .map(withoutDefinition);
  }

  /** Whether the task is recorded, and on which definition: a manager resumes no task another definition began. */
  recordedOn(task: Pick<UnfinishedTask, 'server' | 'taskId'>, config: McpServerConfig): 'this definition' | 'another definition' | 'not recorded' {
    const entries = applied(this.pending, this.onDisk()).filter((entry) => entry.server === task.server && entry.taskId === task.taskId);
    if (entries.length === 0) return 'not recorded';
    const fingerprint = this.fingerprint(config);
    return entries.some((entry) => entry.definition === fingerprint) ? 'this definition' : 'another definition';
  }

  /**
   * Records the tasks of calls to a server of this definition. The fingerprint (and the key file)
   * is made at the first task, not at connect: most servers never run one. A task is not recorded
   * when the fingerprint cannot be made (the key unreadable, warned of).
   */
  recorderFor(config: McpServerConfig): TaskRecorder {
    let definition: string | undefined;
    const stamped = <T>(task: T) => (definition ??= this.fingerprint(config)) === undefined ? undefined : { ...task, definition };
    return {
      begun: (task) => {
        const entry = stamped(task);
        return entry ? this.begun(entry) : Promise.resolve();
      },
      ended: (task) => {
        const entry = stamped(task);
        return entry ? this.ended(entry) : Promise.resolve();
      },
    };
  }

  /** Records a task; one recorded already (being resumed) keeps its entry. Resolves once written, or put off. */
  begun(task: JournalEntry): Promise<void> {
    return this.change({ begun: task });
  }

  /** Resolves once written, or put off. */
  ended(task: Pick<JournalEntry, 'server' | 'taskId' | 'definition'>): Promise<void> {
    return this.change({ ended: task });
  }

  private fingerprint(config: McpServerConfig): string | undefined {
    if (this.key === undefined) {
      try {
        this.key = loadOrCreateKey(`${this.path}.key`);
      } catch (error) {
        this.key = null;
        this.logger.warn(`The task journal's key ${this.path}.key could not be read or made (${reasonOf(error)}): tasks are not recorded, and none recorded before can be resumed. Move it aside, and a new key is made.`);
      }
    }
    if (this.key === null) return undefined;
    const definition = definitionFingerprint(this.key, config);
    return this.oauthDir === undefined ? definition : createHmac('sha256', this.key).update(JSON.stringify([definition, this.oauthDir])).digest('hex').slice(0, 32);
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
          removeLeftStagedCopies(this.path);
          // One synchronous step: this process never reads the changes neither pending nor written.
          const written = this.pending.length;
          const disk = this.readDisk();
          if (disk.unreadable !== undefined) this.keepUnreadable(disk.unreadable);
          this.write(applied(this.pending, disk.tasks));
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

  private onDisk(): JournalEntry[] {
    return this.readDisk().tasks;
  }

  private readDisk(): { tasks: JournalEntry[]; unreadable?: string } {
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

  /**
   * Never lost silently: a journal this version cannot read (hand-edited, another version's format)
   * may hold the only ids of tasks still running, so it is kept beside the new one, and named. One
   * `.old` only, the latest, as the manifest index keeps its own.
   */
  private keepUnreadable(reason: string): void {
    // A folder or a FIFO in the file's place is no journal to keep: the write fails on it, as before.
    if (!lstatSync(this.path, { throwIfNoEntry: false })?.isFile()) return;
    const kept = `${this.path}.old`;
    renameSync(this.path, kept);
    this.logger.warn(`The task journal ${this.path} could not be read (${reason}): it is replaced by a new one, and the old file is kept as ${kept}.`);
  }

  private write(tasks: JournalEntry[]): void {
    const staged = stagedCopyPath(this.path);
    try {
      writeFileSync(staged, JSON.stringify(tasks), { mode: 0o600, flag: 'wx' });
      renameSync(staged, this.path);
    } catch (error) {
      // Each change tries again: a copy left per failed write (a full disk, a folder at the path) would pile up.
      rmSync(staged, { force: true });
      throw error;
    }
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function adviceFor(error: unknown): string {
  return error instanceof FileLockHeld ? ` If no other process is writing it, remove ${error.lockPath}.` : '';
}

function applied(changes: Change[], tasks: JournalEntry[]): JournalEntry[] {
  let result = tasks;
  for (const change of changes) {
    if ('begun' in change) {
      if (!result.some((entry) => sameTask(entry, change.begun))) result = withinLimits([...result, change.begun], change.begun.definition);
    } else {
      result = result.filter((entry) => !sameTask(entry, change.ended));
    }
  }
  return result;
}

/** Without the oldest of the definition just added past its MAX_UNFINISHED_TASKS, and the oldest of all past MAX_JOURNAL_ENTRIES. */
function withinLimits(entries: JournalEntry[], definition: string | undefined): JournalEntry[] {
  let over = entries.filter((entry) => entry.definition === definition).length - MAX_UNFINISHED_TASKS;
  const kept = over <= 0 ? entries : entries.filter((entry) => entry.definition !== definition || over-- <= 0);
  return kept.slice(-MAX_JOURNAL_ENTRIES);
}

function sameTask(a: Pick<JournalEntry, 'server' | 'taskId' | 'definition'>, b: Pick<JournalEntry, 'server' | 'taskId' | 'definition'>): boolean {
  return a.server === b.server && a.taskId === b.taskId && a.definition === b.definition;
}

function withoutDefinition({ definition: _definition, ...task }: JournalEntry): UnfinishedTask {
  return task;
}

function isUnfinishedTask(value: unknown): value is JournalEntry {
  if (typeof value !== 'object' || value === null) return false;
  const { server, taskId, tool, startedAt, definition } = value as Record<string, unknown>;
  return (
    typeof server === 'string' && typeof taskId === 'string' && typeof tool === 'string' && typeof startedAt === 'string' && (definition === undefined || typeof definition === 'string')
  );
}

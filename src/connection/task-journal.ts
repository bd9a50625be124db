/**
 * The tasks in flight, kept in a small file so a later process can collect their results: SEP-2663
 * ("Clients SHOULD persist task IDs to durable storage so that polling can resume after a crash or
 * restart"). An entry names the server, the task id, the tool and when the call began; never the
 * call's arguments. A task id may be the server's bearer token for its state (SEP-2663, "Task ID
 * unguessability"), so the file is written with mode 0600, replaced atomically, and ids are never
 * logged. At most MAX_UNFINISHED_TASKS entries: the oldest go first.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { withFileLock } from '../config/file-lock.js';

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

/** `~/.ai-zen/mcp-tasks.json`, beside the manifest index. */
export function defaultTaskJournalPath(): string {
  return join(homedir(), '.ai-zen', 'mcp-tasks.json');
}

/**
 * A lock held while one change is made: a holder keeps it for one read and one write of a small
 * file, so a lock this old was left by a process that died holding it; a writer gives up its
 * changes (the resume after a restart, nothing more) rather than wait longer.
 */
const LOCK = { staleMs: 5_000, timeoutMs: 10_000 } as const;

type Change = { begun: UnfinishedTask } | { ended: Pick<UnfinishedTask, 'server' | 'taskId'> };

/**
 * Several processes may change the file at once (each manager with the same HOME): a change is
 * made under a lock file beside it (src/config/file-lock.ts) by reading the file, applying it and
 * renaming a new file into place, so none is lost. Changes are written in the background, in
 * order, those made meanwhile in one write; until then this process reads them from memory.
 */
export class TaskJournal {
  private pending: Change[] = [];
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly path: string = defaultTaskJournalPath()) {}

  /** The tasks recorded and not yet ended, oldest first. */
  unfinished(): UnfinishedTask[] {
    return applied(this.pending, this.onDisk());
  }

  /** Records a task; one recorded already (being resumed) keeps its entry. Resolves once written. */
  begun(task: UnfinishedTask): Promise<void> {
    return this.change({ begun: task });
  }

  /** Resolves once written. */
  ended(task: Pick<UnfinishedTask, 'server' | 'taskId'>): Promise<void> {
    return this.change({ ended: task });
  }

  /** Resolves once every change made so far is written, or given up. */
  settled(): Promise<void> {
    return this.writing;
  }

  private change(change: Change): Promise<void> {
    this.pending.push(change);
    this.writing = this.writing.then(() => this.writePending());
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
        LOCK,
      );
    } catch {
      // A journal that cannot be written costs only the resume after a restart, never the call.
      this.pending = [];
    }
  }

  private onDisk(): UnfinishedTask[] {
    try {
      if (statSync(this.path).size > MAX_FILE_BYTES) return [];
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      return Array.isArray(parsed) ? parsed.filter(isUnfinishedTask) : [];
    } catch {
      return [];
    }
  }

  private write(tasks: UnfinishedTask[]): void {
    const staged = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(staged, JSON.stringify(tasks), { mode: 0o600 });
    renameSync(staged, this.path);
  }
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

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
 * The file is read and written whole at each change, in one synchronous step: two processes that
 * change it in the same instant may lose one's change (a task then cannot be resumed, nothing
 * worse), which the lock the manifest index takes would avoid at a cost no call should pay.
 */
export class TaskJournal {
  constructor(readonly path: string = defaultTaskJournalPath()) {}

  /** The tasks recorded and not yet ended, oldest first. */
  unfinished(): UnfinishedTask[] {
    try {
      if (statSync(this.path).size > MAX_FILE_BYTES) return [];
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      return Array.isArray(parsed) ? parsed.filter(isUnfinishedTask) : [];
    } catch {
      return [];
    }
  }

  /** Records a task; one recorded already (being resumed) keeps its entry. */
  begun(task: UnfinishedTask): void {
    const known = this.unfinished();
    if (!known.some((entry) => sameTask(entry, task))) this.write([...known, task].slice(-MAX_UNFINISHED_TASKS));
  }

  ended(task: Pick<UnfinishedTask, 'server' | 'taskId'>): void {
    const known = this.unfinished();
    const left = known.filter((entry) => !sameTask(entry, task));
    if (left.length !== known.length) this.write(left);
  }

  private write(tasks: UnfinishedTask[]): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const staged = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
      writeFileSync(staged, JSON.stringify(tasks), { mode: 0o600 });
      renameSync(staged, this.path);
    } catch {
      // A journal that cannot be written costs only the resume after a restart, never the call.
    }
  }
}

function sameTask(a: Pick<UnfinishedTask, 'server' | 'taskId'>, b: Pick<UnfinishedTask, 'server' | 'taskId'>): boolean {
  return a.server === b.server && a.taskId === b.taskId;
}

function isUnfinishedTask(value: unknown): value is UnfinishedTask {
  if (typeof value !== 'object' || value === null) return false;
  const { server, taskId, tool, startedAt } = value as Record<string, unknown>;
  return typeof server === 'string' && typeof taskId === 'string' && typeof tool === 'string' && typeof startedAt === 'string';
}

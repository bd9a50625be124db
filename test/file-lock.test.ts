/**
 * The lock beside a file several processes rewrite: it names its holder, so a lock left by a
 * process of this machine that died holding it (killed mid-write, Ctrl-C'd past its cleanup) is
 * taken over at once instead of failing every writer until it is 30 s old; a live holder is named
 * in the error; a lock that names no holder here is waited for as before.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type { FileHandle, open } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLockHeld, withFileLock } from '../src/config/file-lock.js';
import { discoverMcpServers } from '../src/config/index.js';
import { configHome, USER_FILE_TEXT } from './support/config-command-home.js';

const HOLDER = fileURLToPath(new URL('./fixtures/hold-file-lock.ts', import.meta.url));
const require = createRequire(import.meta.url);
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;

let root: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcp-file-lock-'));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** A real process holding the lock, once it says it has it. */
async function holdInAnotherProcess(lockPath: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, HOLDER, lockPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error('the holder did not take the lock within 20 s')), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('held')) return;
      clearTimeout(guard);
      resolve();
    });
    child.on('exit', (code) => reject(new Error(`the holder exited with ${code} before taking the lock`)));
  });
  return child;
}

/**
 * Runs `after` once an `open` of node:fs/promises has opened its file, before the caller gets the
 * handle: the moment between a waiter's opening of a lock to read its holder and its acting on what
 * it read. Returns the undo.
 */
function interceptOpen(after: (path: unknown, flags: unknown, file: FileHandle) => Promise<void>): () => void {
  const promises = require('node:fs/promises') as { open: typeof open };
  const original = promises.open;
  promises.open = async (...args: Parameters<typeof open>) => {
    const file = await original(...args);
    await after(args[0], args[1], file);
    return file;
  };
  syncBuiltinESMExports();
  return () => {
    promises.open = original;
    syncBuiltinESMExports();
  };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('a lock file', () => {
  it('left by a process of this machine that was killed holding it is taken over at once, not after 30 s', async () => {
    const lockPath = join(root, 'data.json.lock');
    await kill(await holdInAnotherProcess(lockPath));
    expect(existsSync(lockPath)).toBe(true);

    // A fresh lock, far from stale: only its dead holder lets the wait end before the timeout.
    await expect(withFileLock(lockPath, async () => 'written', { timeoutMs: 5_000, staleMs: 60_000 })).resolves.toBe('written');
    expect(existsSync(lockPath)).toBe(false);
  }, 30_000);

  it('left by a dead process and waited for by several at once is held by one of them at a time', async () => {
    const lockPath = join(root, 'data.json.lock');
    await kill(await holdInAnotherProcess(lockPath));
    const deadHolder = readFileSync(lockPath, 'utf8');
    let holders = 0;
    let mostAtOnce = 0;
    const write = async (startAfterMs: number) => {
      await new Promise((resolve) => setTimeout(resolve, startAfterMs));
      await withFileLock(
        lockPath,
        async () => {
          mostAtOnce = Math.max(mostAtOnce, ++holders);
          await new Promise((resolve) => setTimeout(resolve, 5));
          holders--;
        },
        { timeoutMs: 10_000, staleMs: 60_000 },
      );
    };

    // The waiters come in a fraction of a millisecond apart, so one's takeover can land between
    // another's reading of the dead holder and its removal of the lock.
    for (let round = 0; round < 30; round++) {
      writeFileSync(lockPath, deadHolder);
      await Promise.all(Array.from({ length: 6 }, (_, waiter) => write(waiter % 3)));
    }

    expect(mostAtOnce).toBe(1);
    expect(existsSync(lockPath)).toBe(false);
  }, 30_000);

  it('is not taken over while another waiter holds its takeover guard, even by a waiter that read a dead guard there just before', async () => {
    const lockPath = join(root, 'data.json.lock');
    const guardPath = `${lockPath}.takeover`;
    await kill(await holdInAnotherProcess(lockPath));
    // The guard of a waiter killed in its takeover: the lock's dead holder will do.
    copyFileSync(lockPath, guardPath);
    // Just after the waiter below has opened that dead guard to read it, another waiter removes
    // it and takes over under its own (a live process): what the waiter judged is gone from the path.
    let takingOver: ChildProcess | undefined;
    const restoreOpen = interceptOpen(async (path, flags) => {
      if (path !== guardPath || flags === 'wx' || takingOver) return; // a read of the guard, not its taking
      renameSync(guardPath, join(root, 'dead-guard'));
      takingOver = await holdInAnotherProcess(guardPath);
    });
    let settled = false;
    const waiter = withFileLock(lockPath, async () => 'written', { timeoutMs: 10_000, staleMs: 60_000 }).finally(() => (settled = true));
    try {
      await expect.poll(() => takingOver, { timeout: 20_000 }).toBeDefined();
      const liveGuard = `${takingOver!.pid}@${hostname()}\n`;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled, 'the waiter took the lock over while another was taking it over').toBe(false);
      expect(readFileSync(guardPath, 'utf8')).toBe(liveGuard);

      // Killed in its turn: now its guard is abandoned, and the waiter takes the lock over.
      await kill(takingOver!);
      await expect(waiter).resolves.toBe('written');
      expect(existsSync(lockPath)).toBe(false);
      expect(existsSync(guardPath)).toBe(false);
      expect(existsSync(`${guardPath}.takeover`)).toBe(false);
    } finally {
      restoreOpen();
      for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) await kill(child);
      await waiter.catch(() => {});
    }
  }, 30_000);

  it('held by a live process names that process when the wait gives up', async () => {
    const lockPath = join(root, 'data.json.lock');
    const holder = await holdInAnotherProcess(lockPath);

    const failure = await withFileLock(lockPath, async () => 'written', { timeoutMs: 100 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FileLockHeld);
    expect((failure as FileLockHeld).holderPid).toBe(holder.pid);
    expect((failure as Error).message).toBe(`${lockPath} is held by another process (pid ${holder.pid})`);
  }, 30_000);

  it('that names a process of another host, or no process at all, is waited for until it is stale', async () => {
    const lockPath = join(root, 'data.json.lock');
    const deadHere = (await holdInAnotherProcess(join(root, 'other.lock'))).pid!;
    await kill(children.at(-1)!);
    for (const text of [`${deadHere}@another-host.example\n`, '', 'x'.repeat(100_000), `0@${hostname()}\n`]) {
      writeFileSync(lockPath, text);
      const failure = await withFileLock(lockPath, async () => 'written', { timeoutMs: 50 }).catch((error: unknown) => error);
      expect(failure, JSON.stringify(text.slice(0, 40))).toBeInstanceOf(FileLockHeld);
      expect((failure as FileLockHeld).holderPid).toBeUndefined();
    }
  }, 30_000);

  it('whose holder cannot be written (a full disk) is removed again, so the next writer is not held up', async () => {
    const lockPath = join(root, 'data.json.lock');
    const restoreOpen = interceptOpen(async (path, flags, file) => {
      if (path !== lockPath || flags !== 'wx') return;
      file.writeFile = () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    });
    let failure: unknown;
    try {
      failure = await withFileLock(lockPath, async () => 'written').catch((error: unknown) => error);
    } finally {
      restoreOpen();
    }

    expect((failure as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(existsSync(lockPath)).toBe(false);
    await expect(withFileLock(lockPath, async () => 'written', { timeoutMs: 50 })).resolves.toBe('written');
  });

  it('that is empty and seconds old names no holder: the wait says so instead of blaming another process', async () => {
    const lockPath = join(root, 'data.json.lock');
    writeFileSync(lockPath, '');
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    utimesSync(lockPath, tenSecondsAgo, tenSecondsAgo);

    const failure = await withFileLock(lockPath, async () => 'written', { timeoutMs: 50 }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(FileLockHeld);
    expect((failure as FileLockHeld).empty).toBe(true);
    expect((failure as Error).message).toBe(
      `${lockPath} is an empty lock that names no holder (left by a process that failed or was killed while taking it)`,
    );
  });

  it('that is empty and seconds old fails a config change of the CLI saying to remove it, not that another process is changing the file', async () => {
    const { cli, userFile } = configHome();
    const lockPath = `${userFile}.lock`;
    writeFileSync(lockPath, '');
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    utimesSync(lockPath, tenSecondsAgo, tenSecondsAgo);

    const run = await cli('add', 'x', '--json', '--', 'cmd');

    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { ok: boolean; code: string; error: string };
    expect(report).toMatchObject({ ok: false, code: 'CONFIG_LOCKED' });
    expect(report.error).toBe(
      `${userFile} is locked by ${lockPath}, an empty lock that names no process (left by one that failed, for example on a full disk, or was killed while taking it): nothing was changed. Remove ${lockPath} and try again.`,
    );
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  }, 60_000);

  it('that is a FIFO, planted a while ago, is taken over like any stale lock instead of read, which would wait for a writer for good', async () => {
    const { cli, userFile, read } = configHome();
    const lockPath = `${userFile}.lock`;
    execFileSync('mkfifo', [lockPath]);
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lockPath, aMinuteAgo, aMinuteAgo);

    const run = await cli('add', 'x', '--', 'cmd');

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(read(userFile)).toMatchObject({ mcpServers: { first: {}, last: {}, x: { command: 'cmd' } } });
    expect(existsSync(lockPath)).toBe(false);
  }, 60_000);

  it('that is a folder (a cloned project may hold one by that name) fails at once, saying to move it away, and is left as it is', async () => {
    const lockPath = join(root, 'data.json.lock');
    mkdirSync(lockPath);
    writeFileSync(join(lockPath, 'inside'), 'kept');

    const failure = await withFileLock(lockPath, async () => 'written', { timeoutMs: 50 }).catch((error: unknown) => error);

    expect((failure as Error).message).toBe(`${lockPath} is a folder, not a lock file, so nothing can take the lock: move it away, then try again`);
    expect(readFileSync(join(lockPath, 'inside'), 'utf8')).toBe('kept');
  });

  it('left by a killed process does not hold up a project approval written under it', async () => {
    const approvalsPath = join(root, 'state', 'approvals.json');
    mkdirSync(join(root, 'state'));
    await kill(await holdInAnotherProcess(`${approvalsPath}.lock`));
    const project = join(root, 'project');
    mkdirSync(project);
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { cloned: { command: 'x' } } }));

    const result = await discoverMcpServers({ projectRoot: project, userConfigPath: join(root, 'none.json'), env: {}, projectServers: 'ask', approvalsPath, approveProjectServer: () => true });

    expect(Object.keys(result.servers)).toEqual(['cloned']);
    expect(Object.keys(JSON.parse(readFileSync(approvalsPath, 'utf8')) as object)).toHaveLength(1);
    expect(existsSync(`${approvalsPath}.lock`)).toBe(false);
  }, 30_000);

  it('held by a live process for the whole wait fails a config change of the CLI with CONFIG_LOCKED, naming the holder; the file stays as it was', async () => {
    const { cli, userFile } = configHome();
    const holder = await holdInAnotherProcess(`${userFile}.lock`);

    const run = await cli('add', 'x', '--json', '--', 'cmd');

    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { ok: boolean; code: string; error: string };
    expect(report).toMatchObject({ ok: false, code: 'CONFIG_LOCKED' });
    expect(report.error).toBe(
      `${userFile} is being changed by another process (pid ${holder.pid}): nothing was changed. Try again once it has finished; if no such process runs, remove ${userFile}.lock.`,
    );
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  }, 60_000);
});

/**
 * Stdio servers run in a process group of their own (spawned `detached`, which calls `setsid`
 * on Linux and macOS), so closing one ends every process it started, even those a shell or
 * `npx` left behind (SDK issue #2023). Windows has no process groups to signal: there the tree
 * is ended with `taskkill /T /F`.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, resolve } from 'node:path';

/** Whether a detached child leads a process group that `kill(-pgid)` reaches. */
export const GROUPS_SUPPORTED = process.platform !== 'win32';

/** Bounds the wait for `taskkill`, which can hang on a wedged system. */
const TASKKILL_TIMEOUT_MS = 5_000;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The names Windows tries for a command without an extension: `npx` is `npx.cmd` there (the
 * extensionless `npx` beside it is a shell script Windows cannot run). The rule of `which`, which
 * cross-spawn (what the SDK spawns with) uses; elsewhere the name is used as given.
 */
function candidateNames(path: string, pathExt: string | undefined, platform: NodeJS.Platform): string[] {
  if (platform !== 'win32' || extname(path) !== '') return [path];
  const extensions = (pathExt ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean);
  return extensions.map((extension) => path + extension.toLowerCase());
}

/** The command's path as `spawn` would find it, or undefined when it cannot be run. */
export function resolveCommand(
  command: string,
  pathVariable: string | undefined,
  cwd?: string,
  pathExt?: string,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const hasFolder = command.includes('/') || (platform === 'win32' && command.includes('\\'));
  const folders = hasFolder ? [undefined] : (pathVariable ?? '').split(platform === 'win32' ? ';' : ':').filter(Boolean);
  for (const folder of folders) {
    const base = folder === undefined ? (isAbsolute(command) ? command : resolve(cwd ?? process.cwd(), command)) : join(folder, command);
    const found = candidateNames(base, pathExt, platform).find(isExecutable);
    if (found) return found;
  }
  return undefined;
}

/** Ends a process and all its descendants on Windows. Resolves once `taskkill` is done (or gave up). */
export function killTree(pid: number): Promise<void> {
  return new Promise((done) => {
    const taskkill = spawn('taskkill', ['/T', '/F', '/PID', String(pid)], { stdio: 'ignore', windowsHide: true });
    const timer = setTimeout(() => taskkill.kill(), TASKKILL_TIMEOUT_MS);
    const finish = () => {
      clearTimeout(timer);
      done();
    };
    taskkill.once('error', finish);
    taskkill.once('close', finish);
  });
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Told of each group as it is tracked and as it is let go (the orphan reaper mirrors the set). */
export interface GroupWatcher {
  tracked(pgid: number): void;
  released(pgid: number): void;
}

let watcher: GroupWatcher | undefined;

/** Sets the one watcher (undefined: none), telling it first of the groups already tracked. */
export function watchGroups(next: GroupWatcher | undefined): void {
  watcher = next;
  for (const group of liveGroups) watcher?.tracked(group);
}

/**
 * Signals whose default action ends this process without its 'exit' event. A server in a group
 * of its own gets none of them from the terminal (Ctrl-C goes to the foreground group only), and
 * one that goes on after its stdin closes (a call still running, a grandchild) would outlive us.
 */
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function killLiveGroups(): void {
  for (const group of liveGroups) signalGroup(group, 'SIGKILL');
}

/**
 * Runs before any other listener (it is prepended, so a `once` listener has not yet removed
 * itself): when the program listens too, the signal is the program's to handle (`serve` stops
 * gracefully, an agent calls `dispose()`), and this listener steps aside while the others run,
 * so that a library which ends the process only when it is the signal's one listener (as
 * signal-exit does, under execa and ink) sees itself alone; it listens again for the next
 * signal. When nobody else listens, the groups are killed and the signal raised again with no
 * listener, so the process ends as it would have, by that signal.
 */
function endedBySignal(signal: NodeJS.Signals): void {
  const programListens = process.listenerCount(signal) > 1;
  process.off(signal, endedBySignal);
  if (programListens) {
    setImmediate(() => process.prependListener(signal, endedBySignal));
    return;
  }
  killLiveGroups();
  process.kill(process.pid, signal);
}

/** Whether the program itself listens for this signal (this module's own listener aside). */
export function programHandles(signal: NodeJS.Signals): boolean {
  return process.listeners(signal).some((listener) => listener !== endedBySignal);
}

/** Remembers a group so that it is killed even if this process exits, or a signal ends it, without closing it. */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  watcher?.tracked(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killLiveGroups);
    for (const signal of ENDING_SIGNALS) process.prependListener(signal, endedBySignal);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while a member of the group still runs. Zombies do not count: where PID 1 does not reap
 * orphans (some containers), a dead grandchild stays a zombie and would look alive to kill(0).
 */
export function groupIsAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  return livingProcesses().some((process) => process.pgrp === pgid);
}

/** Processes that are not zombies, with their parent and group, read from /proc (Linux). */
export function livingProcesses(): Array<{ pid: number; ppid: number; pgrp: number }> {
  const living: Array<{ pid: number; ppid: number; pgrp: number }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which may itself hold spaces and parentheses.
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && state !== 'X') living.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp) });
    } catch {
      // the process ended while we read
    }
  }
  return living;
}

/** SIGTERM the whole group, then SIGKILL whatever is left after `graceMs`. Resolves when the group is gone. */
export async function terminateGroup(pgid: number, graceMs = 1_000): Promise<void> {
  if (signalGroup(pgid, 'SIGTERM')) {
    const deadline = Date.now() + graceMs;
    while (groupIsAlive(pgid) && Date.now() < deadline) await pause(20);
    if (groupIsAlive(pgid)) signalGroup(pgid, 'SIGKILL');
    while (groupIsAlive(pgid) && Date.now() < deadline + graceMs) await pause(20);
  }
  if (liveGroups.delete(pgid)) watcher?.released(pgid);
}

function pause(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

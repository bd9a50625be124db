/**
 * Stdio servers run in a process group of their own (through `setsid`), so closing one ends
 * every process it started, even those a shell or `npx` left behind (SDK issue #2023).
 */
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

const SETSID = '/usr/bin/setsid';
const setsidAvailable = process.platform === 'linux' && isExecutable(SETSID);

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The command's path as `spawn` would find it, or undefined when it cannot be run. */
export function resolveCommand(command: string, pathVariable: string | undefined, cwd?: string): string | undefined {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(cwd ?? process.cwd(), command);
    return isExecutable(path) ? path : undefined;
  }
  for (const folder of (pathVariable ?? '').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Wraps a command so it starts as the leader of a new process group (pgid = its pid). */
export function inOwnProcessGroup(command: string, args: string[]): { command: string; args: string[]; grouped: boolean } {
  return setsidAvailable ? { command: SETSID, args: [command, ...args], grouped: true } : { command, args, grouped: false };
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Remembers a group so that it is killed even if this process exits without closing it. */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
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
  liveGroups.delete(pgid);
}

function pause(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

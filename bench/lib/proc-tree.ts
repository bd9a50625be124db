/**
 * Memory and processes of a whole process tree, read from /proc (Linux): the bench child and
 * every living descendant, so a client that starts 50 servers pays for 50 servers.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface ProcEntry {
  pid: number;
  ppid: number;
  command: string;
}

/** Every living (not zombie) process with its parent. */
function livingProcesses(): ProcEntry[] {
  const living: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      if (state === 'Z' || state === 'X') continue;
      living.push({ pid: Number(name), ppid: Number(ppid), command: stat.slice(stat.indexOf('(') + 1, close) });
    } catch {
      // ended while we read
    }
  }
  return living;
}

/** The living descendants of `root` (not `root` itself). */
export function descendantsOf(root: number, living: ProcEntry[] = livingProcesses()): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const entry of living) {
    const siblings = children.get(entry.ppid) ?? [];
    siblings.push(entry);
    children.set(entry.ppid, siblings);
  }
  const found: ProcEntry[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    for (const child of children.get(frontier.pop()!) ?? []) {
      found.push(child);
      frontier.push(child.pid);
    }
  }
  return found;
}

/** Resident memory of one process in bytes (VmRSS), 0 once it is gone. */
export function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface TreeUsage {
  /** Sum of VmRSS over the root and its living descendants. */
  rssBytes: number;
  /** Living descendants. */
  processes: number;
}

export function treeUsage(root: number): TreeUsage {
  const descendants = descendantsOf(root);
  const rssBytes = rssOf(root) + descendants.reduce((sum, entry) => sum + rssOf(entry.pid), 0);
  return { rssBytes, processes: descendants.length };
}

/** Samples a tree every `intervalMs` until stopped; keeps the peaks. */
export class TreeSampler {
  peakRssBytes = 0;
  peakProcesses = 0;
  samples = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly root: number, intervalMs = 50) {
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  sample(): void {
    const usage = treeUsage(this.root);
    if (usage.rssBytes === 0) return;
    this.samples++;
    this.peakRssBytes = Math.max(this.peakRssBytes, usage.rssBytes);
    this.peakProcesses = Math.max(this.peakProcesses, usage.processes);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

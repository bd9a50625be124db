/** The machine a run was measured on, as BENCHMARKS.md records it. */
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  date: string;
  /** 1-minute load average when the run began: above the core count, other work was running. */
  loadAverage: number;
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1]) return match[1].trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export function machineInfo(): MachineInfo {
  return {
    cpuModel: cpuModel(),
    cores: os.availableParallelism?.() ?? os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAverage: os.loadavg()[0] ?? 0,
  };
}

export function describeMachine(info: MachineInfo): string {
  return (
    `${info.cpuModel}, ${info.cores} cores, ${info.memoryGiB} GiB, Node ${info.node}, ${info.platform}; ` +
    `${info.date.slice(0, 16).replace('T', ' ')} UTC; load average ${info.loadAverage.toFixed(2)} at start`
  );
}

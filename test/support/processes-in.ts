import { readdirSync, readlinkSync } from 'node:fs';
import { livingProcesses } from '../../src/transports/process-group.js';

/** Living processes whose working folder is `folder` (a CLI's servers inherit it). */
export function processesIn(folder: string): number[] {
  const living = new Set(livingProcesses().map((entry) => entry.pid));
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && living.has(Number(entry)))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === folder;
      } catch {
        return false;
      }
    })
    .map(Number);
}

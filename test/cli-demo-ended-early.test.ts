/**
 * A demo ended before its end: its reader went away (`mcp-statechart demo | head`, once head has
 * read enough) or the person pressed Ctrl-C. It ends at once, with the shell's code for each (141
 * quietly; 130 saying "Cancelled." as every command does), and leaves neither a server process nor
 * its temporary index behind.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { processesIn } from './support/processes-in.js';

let folder: string;
let temporary: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-demo-early-'));
  temporary = join(folder, 'tmp');
  mkdirSync(temporary);
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** Runs the demo until `stop` is true of its output so far, then does `end` to it; resolves with how it exited. */
function demoEndedBy(stop: (output: string) => boolean, end: (demo: ReturnType<typeof spawn>) => void): Promise<{ code: number | null; stderr: string }> {
  const demo = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, 'demo'], { cwd: folder, env: { ...process.env, HOME: folder, TMPDIR: temporary }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stderr = '';
  let ended = false;
  demo.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (ended || !stop(output)) return;
    ended = true;
    end(demo);
  });
  demo.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const guard = setTimeout(() => demo.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    demo.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr });
    }),
  );
}

/** The demo's temporary index folders in its TMPDIR (tsx keeps its cache there too). */
function demoIndexFolders(): string[] {
  return readdirSync(temporary).filter((name) => name.startsWith('mcp-statechart-demo-index-'));
}

/** Waits (bounded) for the demo's servers, whose stdin closed with the demo, to go. */
async function processesLeftIn(where: string): Promise<number[]> {
  for (let tries = 0; tries < 50 && processesIn(where).length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
  return processesIn(where);
}

describe('a demo ended early', () => {
  it('whose reader went away after the first lines ends quietly with 141, leaving no server process and no index folder', async () => {
    // By the weather server's line the demo has made its index folder and started a server.
    const run = await demoEndedBy(
      (output) => output.includes('[notes] disconnected → connecting'),
      (demo) => demo.stdout!.destroy(),
    );

    expect(run.stderr).toBe('');
    expect(run.code).toBe(141);
    expect(await processesLeftIn(folder)).toEqual([]);
    expect(demoIndexFolders()).toEqual([]);
  }, 30_000);

  it('by Ctrl-C says "Cancelled." and ends with 130, leaving no server process and no index folder', async () => {
    const run = await demoEndedBy(
      (output) => output.includes('[notes] connecting → connected'),
      (demo) => demo.kill('SIGINT'),
    );

    expect(run.code).toBe(130);
    expect(run.stderr).toBe('Cancelled.\n');
    expect(await processesLeftIn(folder)).toEqual([]);
    expect(demoIndexFolders()).toEqual([]);
  }, 30_000);
});

/**
 * A command whose reader leaves after its first line, as `mcp-statechart … | head -1` does: twelve
 * stdio servers that log their pids as they start, the command run on them, its first line read
 * and the pipe closed. A command that writes as it goes ends at the next line with 141 and has
 * started only the servers it was connecting; the processes are waited for, bounded.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI_COMMAND } from './cli.js';
import { isRunning, STDIO_FIXTURE } from './fixtures.js';

const SPAWN_LOG = fileURLToPath(new URL('../fixtures/spawn-log.mjs', import.meta.url));

export interface ReaderLeft {
  firstLine: string;
  code: unknown;
  /** The server processes the command started. */
  spawned: number[];
  /** Those still running once the command ended and up to 5 s more. */
  running: number[];
}

/** Runs `mcp-statechart --config <twelve servers> ...args` in `home` (also its HOME), reading one line. */
export async function firstLineOnTwelveServers(home: string, args: readonly string[]): Promise<ReaderLeft> {
  const spawnLog = join(home, 'spawned.log');
  writeFileSync(spawnLog, '');
  const servers = Object.fromEntries(
    Array.from({ length: 12 }, (_, n) => [`s${n}`, { command: process.execPath, args: ['--import', SPAWN_LOG, STDIO_FIXTURE], env: { SPAWN_LOG: spawnLog } }]),
  );
  const config = join(home, 'twelve.json');
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  const command = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, '--config', config, ...args], {
    cwd: home,
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let firstLine = '';
  command.stdout.on('data', (chunk: Buffer) => {
    firstLine ||= chunk.toString().split('\n')[0]!;
    command.stdout.destroy();
  });
  const guard = setTimeout(() => command.kill('SIGKILL'), 60_000);
  const code = await new Promise((resolve) => command.on('close', resolve));
  clearTimeout(guard);
  const spawned = existsSync(spawnLog) ? readFileSync(spawnLog, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
  // Their process groups are ended as the command exits.
  for (let tries = 0; tries < 50 && spawned.some(isRunning); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
  return { firstLine, code, spawned, running: spawned.filter(isRunning) };
}

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const CLI_ENTRY = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** tsx's loader by absolute URL: `--import tsx` would resolve from the child's working folder. */
export const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
/** The CLI as a process: node with the tsx loader, so tests need no build. */
export const CLI_COMMAND = { command: process.execPath, args: ['--import', TSX_LOADER, CLI_ENTRY] };

/** How a host starts `mcp-statechart --config <config> serve` with `home` as HOME (for a stdio client transport). */
export function serveCommand(config: string, home: string) {
  return { command: CLI_COMMAND.command, args: [...CLI_COMMAND.args, '--config', config, 'serve'], env: { HOME: home, PATH: process.env.PATH ?? '' }, stderr: 'pipe' as const };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn to exit. */
  elapsed: number;
}

/** Runs `mcp-statechart <args>` as a real subprocess; kills it after `timeoutMs`. */
/** `input`: written to the CLI's stdin, which is then closed (otherwise stdin is empty). */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Promise<CliRun> {
  return runProcess(CLI_COMMAND.command, [...CLI_COMMAND.args, ...args], options);
}

/** Runs any command as a real subprocess, as runCli runs the CLI. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Promise<CliRun> {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, HOME: options.env?.HOME ?? process.env.HOME, ...options.env },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, elapsed: Date.now() - started });
    });
  });
}

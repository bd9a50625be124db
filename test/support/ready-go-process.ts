/**
 * A fixture process under tsx that says "ready" once loaded and starts its work when its stdin
 * gives a line, then says "done": several of them, told to go together, work at the same instant
 * however long each took to load.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface ReadyGoProcess {
  ready: Promise<void>;
  done: Promise<void>;
  exited: Promise<unknown>;
  go: () => void;
}

export function readyGoProcess(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): ReadyGoProcess {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, script, ...args], { stdio: ['pipe', 'pipe', 'inherit'], env });
  const lines = createInterface({ input: child.stdout! });
  const said = (line: string) =>
    new Promise<void>((heard, failed) => {
      lines.on('line', (text) => text === line && heard());
      child.once('exit', (code) => failed(new Error(`${script} ${args.join(' ')} exited with ${code} before saying "${line}"`)));
    });
  const ready = said('ready');
  const done = said('done');
  const exited = new Promise((exit) => child.once('exit', exit));
  return { ready, done, exited, go: () => child.stdin!.end('go\n') };
}

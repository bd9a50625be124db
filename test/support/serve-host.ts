/** `mcp-statechart serve` run as an MCP host runs it: a child process spoken to line by line over stdio. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpServerConfig } from '../../machines/types.js';
import { CLI_COMMAND } from './cli.js';
import { stdioFixture } from './fixtures.js';

/** A JSON-RPC message serve wrote to its stdout. */
export interface ServeMessage {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: { isError?: boolean; content?: Array<{ text?: string }> };
  error?: { code?: number; message: string };
}

export interface ServeHost {
  send(message: object): void;
  /** The raw write, for what a host should never send. */
  write(text: string): void;
  end(): void;
  /** Waits (bounded, 10 s) until every write has gone into the pipe to serve; false if some still waits. */
  handedOver(): Promise<boolean>;
  /** Waits (bounded) for the response with this id (serve's own requests to the host are not responses). */
  answer(id: number | string): Promise<ServeMessage>;
  /** Every message serve has written so far, in order. */
  messages(): ServeMessage[];
  /** Stops reading serve's stdout, as a host busy elsewhere would: the pipe fills and serve's writes wait. */
  pauseReading(): void;
  resumeReading(): void;
  /** serve's process id. */
  pid: number;
  /** The temporary home (a place for files a test shares with its servers). */
  home: string;
  exited: Promise<{ code: number | null; at: number }>;
  stderr(): string;
  /** Removes the temporary home; call once serve has exited. */
  cleanUp(): void;
}

/** What else a test gives serve: flags of the serve command itself, more environment variables. */
export interface ServeExtras {
  serveFlags?: string[];
  env?: Record<string, string>;
}

/** Starts serve in a temporary home with these configured servers (by default one, `fixture`). */
export function startServe(servers: Record<string, McpServerConfig> = { fixture: stdioFixture() }, extras: ServeExtras = {}): ServeHost {
  const home = mkdtempSync(join(tmpdir(), 'mcp-serve-host-'));
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  return startServeIn(home, ['--config', config], extras);
}

/** Starts `serve` with these global flags, HOME `home` and working folder `home` (cleanUp removes it). */
export function startServeIn(home: string, flags: string[] = [], { serveFlags = [], env = {} }: ServeExtras = {}): ServeHost {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, ...flags, 'serve', ...serveFlags], {
    cwd: home,
    env: { ...env, HOME: home, PATH: process.env.PATH ?? '' },
  });
  let partial = '';
  const messages: ServeMessage[] = [];
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) messages.push(JSON.parse(line) as ServeMessage);
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // serve may exit before it has read a large write: the broken pipe is expected.
  child.stdin.on('error', () => {});
  const exited = new Promise<{ code: number | null; at: number }>((done) => child.on('exit', (code) => done({ code, at: Date.now() })));
  return {
    send: (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
    write: (text) => child.stdin.write(text),
    end: () => child.stdin.end(),
    async handedOver() {
      for (let wait = 0; wait < 200 && child.stdin.writableLength > 0; wait++) await new Promise((done) => setTimeout(done, 50));
      return child.stdin.writableLength === 0;
    },
    async answer(id) {
      for (let wait = 0; wait < 600; wait++) {
        const found = messages.find((message) => message.id === id && message.method === undefined);
        if (found) return found;
        await new Promise((done) => setTimeout(done, 50));
      }
      throw new Error(`no answer to request ${id}; stderr: ${stderr}`);
    },
    messages: () => messages,
    pauseReading: () => child.stdout.pause(),
    resumeReading: () => child.stdout.resume(),
    pid: child.pid!,
    home,
    exited,
    stderr: () => stderr,
    cleanUp: () => rmSync(home, { recursive: true, force: true }),
  };
}

/** Initializes serve as a host declaring `capabilities`, then loads each server through load_mcp (request ids 1, 2, …). */
export async function initializeAndLoad(serve: ServeHost, servers: string[], capabilities: object = {}): Promise<void> {
  serve.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'host', version: '1' } } });
  await serve.answer(1);
  serve.send({ method: 'notifications/initialized' });
  for (const [index, server] of servers.entries()) {
    serve.send({ id: index + 2, method: 'tools/call', params: { name: 'load_mcp', arguments: { server } } });
    const loaded = await serve.answer(index + 2);
    if (!loaded.result || loaded.result.isError) throw new Error(`load_mcp failed: ${JSON.stringify(loaded)}`);
  }
}

/** Initializes and loads the fixture through load_mcp, so serve has a child process to end. */
export function loadFixture(serve: ServeHost): Promise<void> {
  return initializeAndLoad(serve, ['fixture']);
}

/** Sends `call_mcp_tool` for `server`/`tool` as request `id`, with `_meta` if given (a progressToken). */
export function callThroughServe(serve: ServeHost, id: number, server: string, tool: string, args: object, meta?: object): void {
  serve.send({ id, method: 'tools/call', params: { name: 'call_mcp_tool', arguments: { server, tool, arguments: args }, ...(meta && { _meta: meta }) } });
}

/** The text of an answer to call_mcp_tool. */
export function answerText(message: ServeMessage): string {
  return message.result?.content?.map((part) => part.text ?? '').join('') ?? '';
}

/** Waits (bounded) until `path` exists; true if it does. */
export async function fileAppears(path: string, timeoutMs = 60_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; !existsSync(path) && Date.now() < deadline; ) await new Promise((done) => setTimeout(done, 50));
  return existsSync(path);
}

/** A process's resident memory, in MB. */
export function residentMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/** CPU time (user + system) `pid` has used, in clock ticks. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Waits (bounded, 18 s) until `pid` has taken in what it was sent: under 30 ms of CPU in 300 ms. */
export async function quiet(pid: number): Promise<void> {
  let before = cpuTicks(pid);
  for (let wait = 0; wait < 60; wait++) {
    await new Promise((done) => setTimeout(done, 300));
    const now = cpuTicks(pid);
    if (now - before < 3) return;
    before = now;
  }
}

/** A request of 11 MB: over the 10 MiB the SDK's stdio transport reads. */
const OVERSIZED_REQUEST = `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"${'x'.repeat(11 * 1024 * 1024)}"}}\n`;

/** Sends serve an 11 MB request (id 3) once it has a server loaded, and then a ping (id 4) in the same write. */
export async function feedOversizedRequest(serve: ServeHost): Promise<void> {
  await loadFixture(serve);
  serve.write(`${OVERSIZED_REQUEST}{"jsonrpc":"2.0","id":4,"method":"ping"}\n`);
}

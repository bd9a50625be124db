import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../machines/types.js';
import { defaultTransportFactory, type TransportFactory } from '../../src/connection/open-session.js';

const require = createRequire(import.meta.url);

/** The reference server's entry script (`node <it> stdio|streamableHttp`). */
export const EVERYTHING_SCRIPT = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** server-everything over stdio, started with node directly (no npx). */
export function everythingStdio(): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING_SCRIPT, 'stdio'] };
}

/** The text parts of a tool result, joined. */
export function textOf(result: Record<string, unknown>): string {
  return ((result.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

/** server-everything in streamableHttp mode on 127.0.0.1 (a free port); `url` is its MCP endpoint. */
export async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const preload = fileURLToPath(new URL('../fixtures/loopback-listen.mjs', import.meta.url));
  const child = spawn(process.execPath, ['--import', pathToFileURL(preload).href, EVERYTHING_SCRIPT, 'streamableHttp'], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${seen.slice(-500)}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4000);
      const match = /LOOPBACK_PORT (\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${seen.slice(-500)}`));
    });
  });
  child.stderr!.resume();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const RELAY = fileURLToPath(new URL('../fixtures/recording-relay.mjs', import.meta.url));

/**
 * server-everything behind a relay that writes each method it receives to `logFile` (see
 * test/fixtures/recording-relay.mjs): what the server was sent, seen from its side.
 */
export function everythingBehindRelay(logFile: string): McpServerConfig {
  const { command, args } = everythingStdio();
  return { command: process.execPath, args: [RELAY, logFile, command!, ...(args ?? [])] };
}

/** The methods the server behind the relay received so far, one per line (`notifications/cancelled <id>`). */
export function receivedByServer(logFile: string): string[] {
  return readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
}

/** The answers the server behind the relay got to its own requests, in order (`answer {result}` / `error {error}`). */
export function answersReceived(logFile: string): string[] {
  return receivedByServer(logFile).filter((line) => line.startsWith('answer ') || line.startsWith('error '));
}

/** A transport factory that records every message the client sends, and the pid of each stdio server it starts. */
export function recordingTransports() {
  const sent: JSONRPCMessage[] = [];
  const transports: Array<ReturnType<TransportFactory>> = [];
  const transportFactory: TransportFactory = (spec) => {
    const transport = defaultTransportFactory(spec);
    transports.push(transport);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      sent.push(message);
      return send(message, options);
    };
    return transport;
  };
  const sentMethods = (method: string) =>
    sent.filter((message): message is JSONRPCMessage & { method: string; params?: Record<string, unknown> } => 'method' in message && message.method === method);
  /** The pid of the last stdio server started (a stdio transport keeps it after the start). */
  const lastServerPid = () => {
    const pid = (transports.at(-1) as { pid?: number } | undefined)?.pid;
    if (pid === undefined) throw new Error('no stdio server was started through this factory');
    return pid;
  };
  return { transportFactory, sent, sentMethods, lastServerPid };
}

/** A temporary HOME with an mcp.json whose one server, `everything`, runs behind the recording relay. */
export function everythingConfigHome(prefix: string) {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const received = join(home, 'received.log');
  writeFileSync(received, '');
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: everythingBehindRelay(received) } }));
  return { home, received, config, remove: () => rmSync(home, { recursive: true, force: true }) };
}

const METHOD_LOG = pathToFileURL(fileURLToPath(new URL('../fixtures/discover-log.mjs', import.meta.url))).href;

/**
 * server-everything over stdio with a preload that writes a line to `logFile` (emptied first) for
 * each `tools/call` it reads; `callsRead()` counts them, so a test can show nothing was sent.
 */
export function everythingCountingToolCalls(logFile: string): { config: McpServerConfig; callsRead: () => number } {
  writeFileSync(logFile, '');
  return {
    config: {
      command: process.execPath,
      args: ['--import', METHOD_LOG, EVERYTHING_SCRIPT, 'stdio'],
      env: { DISCOVER_LOG: logFile, DISCOVER_LOG_METHOD: 'tools/call' },
    },
    callsRead: () => readFileSync(logFile, 'utf8').split('\n').filter(Boolean).length,
  };
}

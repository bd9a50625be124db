/** `mcp-statechart serve --http` as a process: started in a home of the test's, its address read from stderr. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI_COMMAND } from './cli.js';
import { modernMeta } from './modern-post.js';

export interface HttpServe {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr(): string;
  /** Sends `signal` (default SIGTERM) and waits, bounded, for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `serve --http <listen>` (default 127.0.0.1:0) with these global and serve flags; rejects when it exits or is silent for 60 s. */
export async function startHttpServe(
  home: string,
  globalFlags: string[],
  serveFlags: string[] = [],
  { listen = '127.0.0.1:0', env = {} }: { listen?: string; env?: Record<string, string> } = {},
): Promise<HttpServe> {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, ...globalFlags, 'serve', '--http', listen, ...serveFlags], {
    cwd: home,
    env: { HOME: home, PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout?.resume();
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --http did not start within 60 s: ${stderr.slice(-1000)}`)), 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-64_000);
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve --http exited with ${code}: ${stderr.slice(-1000)}`));
    });
  });
  return {
    url,
    origin: new URL(url).origin,
    child,
    exited,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** `serve --http` with no servers configured, in a home of its own (`prefix` names it); `close()` stops it and removes the home. */
export async function startEmptyReplica(prefix: string, serveFlags: string[] = []): Promise<HttpServe & { close(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: {} }));
  try {
    const replica = await startHttpServe(home, ['--config', join(home, 'mcp.json')], serveFlags);
    return {
      ...replica,
      async close() {
        await replica.stop();
        rmSync(home, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
}

/** A 2026-07-28 host connected to `serve --http` at `url`, sending `token` as its bearer token; added to `opened` for the test to close. */
export async function teamHost(url: string, token: string, opened: Array<{ close(): Promise<void> }> = []): Promise<Client> {
  const client = new Client({ name: 'team-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  opened.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A bearer token as the gateway file holds it: `sha256:` and the hex of its hash. */
export function gatewayTokenHash(token: string): string {
  return `sha256:${createHash('sha256').update(token).digest('hex')}`;
}

/** A team's `serve --http` in a home of its own: the MCP config and gateway file written there, the hosts the test opened. */
export interface TeamGateway {
  home: string;
  /** The MCP config's path. */
  config: string;
  /** The gateway file's path. */
  gatewayFile: string;
  serve: HttpServe;
  /** Hosts to close with the gateway (a test adds its own kinds). */
  hosts: Array<{ close(): Promise<void> }>;
  /** A 2026-07-28 host with this bearer token. */
  host(token: string): Promise<Client>;
  /** Closes the hosts, stops serve and removes the home. */
  close(): Promise<void>;
}

/** Identity rules as the gateway file holds them, with the bearer token in the clear (written hashed). */
export type TeamIdentities = Record<string, { token: string } & Record<string, unknown>>;

/**
 * Starts `serve --http --gateway` in a new home with `mcpServers` and `identities` (plus `groups`
 * and other gateway-file fields in `gatewayExtras`, more serve flags in `serveFlags`, run in the
 * home); `beforeServe` runs once the config is written.
 */
export async function startTeamGateway(
  name: string,
  mcpServers: Record<string, unknown>,
  identities: TeamIdentities,
  {
    globalFlags = [],
    serveFlags = [],
    gatewayExtras = {},
    beforeServe,
  }: { globalFlags?: string[]; serveFlags?: string[]; gatewayExtras?: Record<string, unknown>; beforeServe?: (home: string, config: string) => Promise<void> } = {},
): Promise<TeamGateway> {
  const home = mkdtempSync(join(tmpdir(), `mcp-serve-${name}-`));
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers }));
  await beforeServe?.(home, config);
  const gatewayFile = join(home, 'gateway.json');
  const hashed = Object.fromEntries(Object.entries(identities).map(([identity, rules]) => [identity, { ...rules, token: gatewayTokenHash(rules.token) }]));
  writeFileSync(gatewayFile, JSON.stringify({ identities: hashed, ...gatewayExtras }));
  const serve = await startHttpServe(home, ['--config', config, ...globalFlags], ['--gateway', gatewayFile, ...serveFlags]);
  const hosts: Array<{ close(): Promise<void> }> = [];
  return {
    home,
    config,
    gatewayFile,
    serve,
    hosts,
    host: (token) => teamHost(serve.url, token, hosts),
    async close() {
      await Promise.all(hosts.map((host) => host.close()));
      await serve.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * A 2026-07-28 `tools/call` of `call_mcp_tool` as raw HTTP to serve's `/mcp` at `url`, for tests
 * that write it on a socket of their own (held half-sent, never read): its head, ending in the
 * blank line, and its body.
 */
export function rawLoaderCall(url: string, token: string, clientName: string, call: { server: string; tool: string; arguments: Record<string, unknown> }): { head: string; body: Buffer } {
  const { hostname, port } = new URL(url);
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'call_mcp_tool', arguments: call, _meta: modernMeta(clientName) } }));
  const head = [
    'POST /mcp HTTP/1.1',
    `Host: ${hostname}:${port}`,
    `Authorization: Bearer ${token}`,
    'Mcp-Protocol-Version: 2026-07-28',
    'Mcp-Method: tools/call',
    'Mcp-Name: call_mcp_tool',
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${body.length}`,
    '',
    '',
  ].join('\r\n');
  return { head, body };
}

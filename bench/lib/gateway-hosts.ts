/**
 * The hosts of the gateway bench and the batches they run. A host calls server-everything's
 * `echo` and checks the answer: through `call_mcp_tool` on the gateway (a v2 client pinned to
 * 2026-07-28, or a 2025-era v1 client with a sealed session), through stdio `serve`, or as the
 * raw v2 client straight on the server. A batch is `calls` calls with `concurrency` in flight,
 * each worker on its own host (the HTTP hosts) or all on the one host (stdio), each call timed.
 */
import { performance } from 'node:perf_hooks';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { everythingStdio, textOf } from '../../test/support/everything.js';

export const SERVER = 'everything';

export interface Host {
  /** One echo call; rejects unless the answer is the echo of `message`. */
  call(message: string): Promise<void>;
  close(): Promise<void>;
}

/** The v2 SDK's stdio transport probes in a sibling process; a subclass probes on its own pipe, so the server starts once. */
class OneProcessStdioTransport extends StdioClientTransport {}

function checked(message: string, text: string): void {
  if (text !== `Echo: ${message}`) throw new Error(`expected the echo of ${message}, got ${JSON.stringify(text.slice(0, 300))}`);
}

function throughLoader(call: (request: { name: string; arguments: Record<string, unknown> }) => Promise<Record<string, unknown>>) {
  return async (message: string) => {
    checked(message, textOf(await call({ name: 'call_mcp_tool', arguments: { server: SERVER, tool: 'echo', arguments: { message } } })));
  };
}

/** The raw v2 client on server-everything over stdio (started in `cwd`): no serve, no gateway. */
export async function rawHost(cwd: string): Promise<Host> {
  const { command, args } = everythingStdio();
  const client = new ModernClient({ name: 'bench-raw-host', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new OneProcessStdioTransport({ command: command!, args: args ?? [], cwd, stderr: 'ignore' }));
  return {
    call: async (message) => checked(message, textOf(await client.callTool({ name: 'echo', arguments: { message } }))),
    close: () => client.close(),
  };
}

/**
 * A 2025-era v1 host on stdio `serve` (started with `parameters`); `pid`: serve's. Not a
 * 2026-07-28 host: serve keeps each of its calls open for input rounds and refuses the 33rd at
 * once on one connection (MAX_WAITING_CALLS in src/serve/host-rounds.ts), and the bench has 50 in flight.
 */
export async function stdioServeHost(parameters: StdioServerParameters): Promise<Host & { pid: number }> {
  const client = new LegacyClient({ name: 'bench-stdio-host', version: '1.0.0' });
  const transport = new LegacyStdioTransport({ ...parameters, stderr: 'ignore' });
  await client.connect(transport);
  return { pid: transport.pid ?? 0, call: throughLoader((request) => client.callTool(request)), close: () => client.close() };
}

const bearer = (token: string | undefined) => (token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } });

/** A v2 host on the gateway, pinned to 2026-07-28: stateless, every request may land on any replica. */
export async function modernHttpHost(url: string, token?: string): Promise<Host> {
  const client = new ModernClient({ name: 'bench-modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), bearer(token)));
  if (client.getNegotiatedProtocolVersion() !== '2026-07-28') throw new Error(`the gateway negotiated ${client.getNegotiatedProtocolVersion()}`);
  return { call: throughLoader((request) => client.callTool(request)), close: () => client.close() };
}

/** A 2025-era v1 host on the gateway: its Mcp-Session-Id is the sealed session any replica resumes. */
export async function legacyHttpHost(url: string, token?: string): Promise<Host> {
  const client = new LegacyClient({ name: 'bench-legacy-host', version: '1.0.0' });
  const transport = new LegacyHttpTransport(new URL(url), bearer(token));
  await client.connect(transport);
  if (!transport.sessionId) throw new Error('the gateway gave the legacy host no session id');
  return { call: throughLoader((request) => client.callTool(request)), close: () => client.close() };
}

export interface Batch {
  ms: number;
  /** The latency in ms of each call answered, in completion order. */
  latencies: number[];
  /** Calls that failed (an HTTP error, a closed connection, a wrong answer), and the first reason. */
  failed: number;
  firstFailure?: string;
}

/**
 * `calls` calls, `concurrency` in flight, worker `i` on `hosts[i % hosts.length]`. A failed call
 * is counted, not retried: the row says how many failed and why, next to the figures.
 */
export async function runBatch(hosts: readonly Host[], calls: number, concurrency: number, label: string): Promise<Batch> {
  const batch: Batch = { ms: 0, latencies: [], failed: 0 };
  let next = 0;
  const worker = async (slot: number) => {
    const host = hosts[slot % hosts.length]!;
    while (next < calls) {
      const index = next++;
      const started = performance.now();
      try {
        await host.call(`${label}-${index}`);
        batch.latencies.push(performance.now() - started);
      } catch (error) {
        batch.failed += 1;
        batch.firstFailure ??= (error instanceof Error ? `${error.message} ${String((error.cause as Error | undefined)?.message ?? '')}` : String(error)).trim().slice(0, 300);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, slot) => worker(slot)));
  batch.ms = performance.now() - started;
  return batch;
}

export async function closeHosts(hosts: readonly Host[]): Promise<void> {
  await Promise.allSettled(hosts.map((host) => host.close()));
}

/**
 * The ways to call a fixture tool that the call benchmarks compare: the raw SDK client,
 * `McpConnectionManager.callTool` (straight to the connected server's session actor), the
 * `call_mcp_tool` loader tool on top of the manager, and `manager.callTool` with an inspector
 * attached (every call then takes the event route through the registry, and the inspector gets
 * sanitized copies of every snapshot), and `manager.callTool` with the OpenTelemetry SDK recording
 * (`traced`: spans to an in-memory exporter, metrics to a reader). Each gets its own fixture server of the same
 * kind: in memory (a linked pair to `createFixtureServer()`), over stdio (`node stdio-server.mjs`), or
 * over stdio to a server that speaks only 2026-07-28 (`modern`: `node modern-server.mjs`), which the
 * raw client addresses pinned to that revision (it knows the era) and the manager in `auto`.
 */
import { Client, type Transport } from '@modelcontextprotocol/client';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { TelemetryOptions } from '../../src/telemetry/providers.js';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
// The fixture server is a v1 SDK server: its half of the linked pair comes from the v1 package.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTool } from '../../src/index.js';
import { createFixtureServer } from '../../test/fixtures/fixture-server.mjs';
import type { InspectionEvent } from 'xstate';
import { MODERN_FIXTURE, stdioFixture, STDIO_FIXTURE } from './paths.js';
import { temporaryManifestIndex } from './temporary-index.js';

export type TransportKind = 'memory' | 'stdio' | 'modern';
export type VariantKey = 'raw' | 'manager' | 'loader' | 'inspected' | 'traced';

export interface CallVariant {
  key: VariantKey;
  /** One echo call; rejects if the answer is not the echo. */
  call(): Promise<void>;
}

export interface CallSetup {
  variants: Record<VariantKey, CallVariant>;
  manager: McpConnectionManager;
  close(): Promise<void>;
}

const SERVER = 'fixture';
const MODERN_REVISION = '2026-07-28';
const ARGS = { text: 'hello' };

/** The client side of a linked pair whose other side a fresh fixture server holds. */
export function inMemoryFixtureTransport(): Transport {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  void createFixtureServer().connect(serverSide);
  return clientSide;
}

export async function rawClient(kind: TransportKind): Promise<Client> {
  const mode = kind === 'modern' ? { pin: MODERN_REVISION } : 'auto';
  const client = new Client({ name: 'bench-raw', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode } });
  const transport =
    kind === 'memory'
      ? inMemoryFixtureTransport()
      : new StdioClientTransport({ command: process.execPath, args: [kind === 'modern' ? MODERN_FIXTURE : STDIO_FIXTURE], stderr: 'ignore' });
  await client.connect(transport);
  // The manager lists tools on connect, and the SDK then checks results against output schemas: do the same.
  await client.listTools();
  return client;
}

export function benchManager(kind: TransportKind, inspect?: (event: InspectionEvent) => void, telemetry?: TelemetryOptions): McpConnectionManager {
  return new McpConnectionManager({
    logger: silentLogger,
    ...(inspect ? { inspect } : {}),
    ...telemetry,
    ...(kind === 'memory' ? { transportFactory: inMemoryFixtureTransport } : {}),
  });
}

function expectEcho(text: string | undefined): void {
  if (text !== ARGS.text) throw new Error(`expected the echo "${ARGS.text}", got ${JSON.stringify(text)}`);
}

function firstText(result: unknown): string | undefined {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content;
  return content?.[0]?.type === 'text' ? content[0].text : undefined;
}

/**
 * The OpenTelemetry SDK as an application would run it, exporting to memory: spans through a
 * simple processor to an in-memory exporter (emptied every 1,000 spans, so the bench's memory
 * stays flat), metrics into a reader that is never collected.
 */
function inMemoryTelemetry(): TelemetryOptions {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor({
      export: (spans, done) => {
        if (exporter.getFinishedSpans().length >= 1_000) exporter.reset();
        exporter.export(spans, done);
      },
      shutdown: () => exporter.shutdown(),
    })],
  });
  const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })] });
  return { tracerProvider, meterProvider };
}

/** Connects what `keys` asks for and checks one call of each. `inspected` attaches the inspector to the one manager every non-raw variant shares: ask for it alone. */
export async function setUpCalls(kind: TransportKind, keys: readonly VariantKey[] = ['raw', 'manager', 'loader']): Promise<CallSetup> {
  const config =
    kind === 'memory' ? { command: 'in-memory-fixture' } : kind === 'modern' ? { command: process.execPath, args: [MODERN_FIXTURE] } : stdioFixture();
  // An inspector that keeps only a count: what it costs is ours (the event route, the sanitized copies), not a viewer's.
  let inspected = 0;
  const manager = benchManager(kind, keys.includes('inspected') ? () => void inspected++ : undefined, keys.includes('traced') ? inMemoryTelemetry() : undefined);
  const closers: Array<() => Promise<void>> = [() => manager.dispose()];
  const variants = {} as Record<VariantKey, CallVariant>;

  if (keys.includes('raw')) {
    const client = await rawClient(kind);
    closers.push(() => client.close());
    expectEcho(firstText(await client.callTool({ name: 'echo', arguments: ARGS })));
    variants.raw = {
      key: 'raw',
      call: async () => {
        const result = await client.callTool({ name: 'echo', arguments: ARGS });
        if (result.isError) expectEcho(undefined);
      },
    };
  }

  if (keys.some((key) => key !== 'raw')) {
    const tools: LoaderTool[] = createLoaderTools({
      manager,
      servers: { [SERVER]: { config, description: 'The fixture server: echo, add, slow, …' } },
      manifestIndex: temporaryManifestIndex(),
    });
    const load = tools.find((tool) => tool.name === 'load_mcp')!;
    const callTool = tools.find((tool) => tool.name === 'call_mcp_tool')!;
    const loaded = await load.execute({ server: SERVER });
    if (loaded.isError) throw new Error(`load_mcp failed: ${loaded.text}`);
    variants.manager = {
      key: 'manager',
      call: async () => {
        const result = await manager.callTool(SERVER, 'echo', ARGS);
        if (result.isError) expectEcho(undefined);
      },
    };
    variants.inspected = {
      key: 'inspected',
      call: async () => {
        const result = await manager.callTool(SERVER, 'echo', ARGS);
        if (result.isError) expectEcho(undefined);
      },
    };
    variants.traced = {
      key: 'traced',
      call: async () => {
        const result = await manager.callTool(SERVER, 'echo', ARGS);
        if (result.isError) expectEcho(undefined);
      },
    };
    variants.loader = {
      key: 'loader',
      call: async () => {
        const result = await callTool.execute({ server: SERVER, tool: 'echo', arguments: ARGS });
        if (result.isError) throw new Error(`call_mcp_tool failed: ${result.text}`);
      },
    };
    expectEcho(firstText(await manager.callTool(SERVER, 'echo', ARGS)));
    const viaLoader = await callTool.execute({ server: SERVER, tool: 'echo', arguments: ARGS });
    expectEcho(viaLoader.isError ? undefined : viaLoader.text);
    if (keys.includes('inspected') && inspected === 0) throw new Error('the inspector attached to the manager saw nothing');
  }
  return {
    variants,
    manager,
    close: async () => {
      for (const close of closers.reverse()) await close();
    },
  };
}

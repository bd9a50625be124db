/**
 * What the loader tools save in the model's context: the loader tool definitions against
 * registering every tool of the same servers up front (the "eager" way). Measured twice, with a
 * manifest index of its own in a temporary folder (never the user's ~/.ai-zen index): before any
 * server is indexed (three tools: search_mcp_tools is offered only over a non-empty index) and
 * after the eager listing has indexed them all (four tools, and each server line with its tool
 * count). Shared by bench/context-size.bench.ts (prints) and bench/parts/context.ts (table rows).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type LoaderServers } from '../../src/index.js';
import { toFunctionDefinitions } from '../../src/entries/ai-sdk.js';
import { projectBin, stdioFixture } from './paths.js';

export interface ContextScenario {
  label: string;
  servers: LoaderServers;
  /** Removes what the scenario made (temporary folders). */
  cleanup?: () => void;
}

export interface ContextMeasurement {
  label: string;
  servers: number;
  tools: number;
  eagerBytes: number;
  eagerTokens: number;
  /** Before any server is indexed. */
  loaderBytes: number;
  loaderTokens: number;
  loaderTools: number;
  /** Once every server is indexed. */
  indexedLoaderBytes: number;
  indexedLoaderTokens: number;
  indexedLoaderTools: number;
  /** 100 · (1 − loader / eager), before indexing. */
  reductionPercent: number;
  /** 100 · (1 − indexed loader / eager). */
  indexedReductionPercent: number;
}

const FIXTURE = { config: stdioFixture(), description: 'The test fixture server: echo, add, media, resources' };
const WIDE = { config: stdioFixture('--name', 'wide', '--extra-tools', '40'), description: 'A fixture server with 40 extra tools' };

/** The project's own fixture servers. */
export function fixtureScenarios(): ContextScenario[] {
  return [
    { label: 'one fixture server', servers: { fixture: FIXTURE } },
    { label: 'fixture + wide fixture', servers: { fixture: FIXTURE, wide: WIDE } },
  ];
}

/** The MCP reference servers installed as dev dependencies: server-everything, server-memory and server-filesystem together. */
export function referenceServersScenario(): ContextScenario {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-context-'));
  const node = (bin: string, ...args: string[]) => ({ command: process.execPath, args: [projectBin(bin), ...args] });
  return {
    label: 'server-everything + server-memory + server-filesystem',
    servers: {
      everything: { config: node('mcp-server-everything', 'stdio'), description: 'The MCP reference server that exercises every protocol feature' },
      memory: {
        config: { ...node('mcp-server-memory'), env: { MEMORY_FILE_PATH: path.join(folder, 'memory.jsonl') } },
        description: 'A knowledge-graph memory: entities, relations, observations',
      },
      filesystem: { config: node('mcp-server-filesystem', folder), description: 'Read, write and search files under one folder' },
    },
    cleanup: () => rmSync(folder, { recursive: true, force: true }),
  };
}

function sizeOf(definitions: unknown): { bytes: number; tokens: number } {
  const json = JSON.stringify(definitions);
  return { bytes: Buffer.byteLength(json, 'utf8'), tokens: Math.round(json.length / 4) };
}

export async function measureContext({ label, servers }: ContextScenario): Promise<ContextMeasurement> {
  const indexFolder = mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-context-index-'));
  const manifestIndex = () => new ManifestIndex({ path: path.join(indexFolder, 'mcp-index.json') });
  const manager = new McpConnectionManager({ logger: silentLogger });
  try {
    const loaderTools = createLoaderTools({ manager, servers, manifestIndex: manifestIndex() });
    const loader = sizeOf(toFunctionDefinitions(loaderTools));
    const eagerDefinitions = [];
    for (const server of Object.keys(servers)) {
      const { tools } = await manager.connect(server);
      eagerDefinitions.push(...tools.map(({ name, description, inputSchema }) => ({ name, description, parameters: inputSchema })));
    }
    const eager = sizeOf(eagerDefinitions);
    const indexedTools = createLoaderTools({ manager, servers, manifestIndex: manifestIndex() });
    const indexed = sizeOf(toFunctionDefinitions(indexedTools));
    return {
      label,
      servers: Object.keys(servers).length,
      tools: eagerDefinitions.length,
      eagerBytes: eager.bytes,
      eagerTokens: eager.tokens,
      loaderBytes: loader.bytes,
      loaderTokens: loader.tokens,
      loaderTools: loaderTools.length,
      indexedLoaderBytes: indexed.bytes,
      indexedLoaderTokens: indexed.tokens,
      indexedLoaderTools: indexedTools.length,
      reductionPercent: 100 * (1 - loader.bytes / eager.bytes),
      indexedReductionPercent: 100 * (1 - indexed.bytes / eager.bytes),
    };
  } finally {
    await manager.dispose();
    rmSync(indexFolder, { recursive: true, force: true });
  }
}

export function formatContextMeasurement(measurement: ContextMeasurement): string {
  return [
    `${measurement.label} (${measurement.servers} servers, ${measurement.tools} MCP tools)`,
    `  eager, every tool:     ${measurement.eagerBytes} bytes ≈ ${measurement.eagerTokens} tokens`,
    `  loader, not indexed:   ${measurement.loaderBytes} bytes ≈ ${measurement.loaderTokens} tokens (${measurement.loaderTools} tools), ` +
      `${measurement.reductionPercent.toFixed(1)}% smaller`,
    `  loader, indexed:       ${measurement.indexedLoaderBytes} bytes ≈ ${measurement.indexedLoaderTokens} tokens ` +
      `(${measurement.indexedLoaderTools} tools), ${measurement.indexedReductionPercent.toFixed(1)}% smaller`,
  ].join('\n');
}

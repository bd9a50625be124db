/**
 * What the loader tools save in the model's context: the three loader tool definitions against
 * registering every tool of the same servers up front (the "eager" way).
 * Run: npx tsx bench/context-size.bench.ts   — prints sizes, asserts nothing.
 */
import {
  createLoaderTools,
  McpConnectionManager,
  silentLogger,
  toFunctionDefinitions,
  type LoaderServers,
} from '../src/index.js';
import { stdioFixture } from '../test/support/fixtures.js';

const FIXTURE = { config: stdioFixture(), description: 'The test fixture server: echo, add, media, resources' };
const WIDE = { config: stdioFixture('--name', 'wide', '--extra-tools', '40'), description: 'A fixture server with 40 extra tools' };

const SCENARIOS: Array<{ label: string; servers: LoaderServers }> = [
  { label: 'one fixture server', servers: { fixture: FIXTURE } },
  { label: 'fixture + wide fixture', servers: { fixture: FIXTURE, wide: WIDE } },
];

function sizeOf(definitions: unknown): { bytes: number; tokens: number } {
  const json = JSON.stringify(definitions);
  return { bytes: Buffer.byteLength(json, 'utf8'), tokens: Math.round(json.length / 4) };
}

async function measure(label: string, servers: LoaderServers): Promise<void> {
  const manager = new McpConnectionManager({ logger: silentLogger });
  try {
    const loader = sizeOf(toFunctionDefinitions(createLoaderTools({ manager, servers })));
    const eagerDefinitions = [];
    for (const server of Object.keys(servers)) {
      const { tools } = await manager.connect(server);
      eagerDefinitions.push(...tools.map(({ name, description, inputSchema }) => ({ name, description, parameters: inputSchema })));
    }
    const eager = sizeOf(eagerDefinitions);
    const reduction = (100 * (1 - loader.bytes / eager.bytes)).toFixed(1);
    console.log(`${label} (${Object.keys(servers).length} servers, ${eagerDefinitions.length} MCP tools)`);
    console.log(`  eager, every tool:     ${eager.bytes} bytes ≈ ${eager.tokens} tokens`);
    console.log(`  loader, three tools:   ${loader.bytes} bytes ≈ ${loader.tokens} tokens`);
    console.log(`  reduction:             ${reduction}%`);
  } finally {
    await manager.dispose();
  }
}

for (const { label, servers } of SCENARIOS) await measure(label, servers);

/**
 * How long discoverMcpServers takes on a 10,000-server file (the registry is built so that many
 * configured servers cost nothing until used; discovery must not be the bottleneck).
 * Run: npx tsx bench/config-parse.bench.ts   — prints timings, asserts nothing.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { discoverMcpServers } from '../src/config/index.js';
import { configEntries } from './lib/config-entries.js';

const SERVERS = 10_000;
const RUNS = 5;

async function main(): Promise<void> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-config-bench-'));
  try {
    const mcpServers = configEntries(SERVERS);
    const file = path.join(folder, '.mcp.json');
    const text = JSON.stringify({ mcpServers }, null, 2);
    await fs.writeFile(file, text);

    const options = {
      userConfigPath: path.join(folder, 'no-user-file.json'),
      projectRoot: folder,
      env: { API_TOKEN: 'token', HOME_DIR: '/home/bench' },
    };
    await discoverMcpServers(options); // warm-up: module loading and JIT are not what we measure

    const timings: number[] = [];
    let loaded = 0;
    for (let run = 0; run < RUNS; run++) {
      const start = performance.now();
      const result = await discoverMcpServers(options);
      timings.push(performance.now() - start);
      loaded = Object.keys(result.servers).length;
    }
    timings.sort((a, b) => a - b);
    const median = timings[Math.floor(RUNS / 2)] ?? Number.NaN;

    const parseStart = performance.now();
    JSON.parse(text);
    const jsonOnly = performance.now() - parseStart;

    console.log(`config-parse: ${loaded} servers, ${(text.length / 1e6).toFixed(1)} MB`);
    console.log(`  discoverMcpServers median of ${RUNS}: ${median.toFixed(1)} ms (runs: ${timings.map((t) => t.toFixed(1)).join(', ')})`);
    console.log(`  JSON.parse alone: ${jsonOnly.toFixed(1)} ms  → discovery / JSON.parse ≈ ${(median / jsonOnly).toFixed(1)}×`);
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

await main();

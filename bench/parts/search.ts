/**
 * Part 7: tool search. Relevance (recall@1 and @5 of labelled user queries over the reference
 * servers' real tools plus a synthetic catalogue of 1,000 tools on 100 servers), search latency
 * with 10,000 indexed tools, context bytes of the four loader tools against eager definitions of
 * every indexed tool, loader definition bytes from 10 to 10,000 configured servers, and the time
 * from a search to the first result of the found tool on a server not started yet, against one
 * raw SDK connect + call.
 *
 * Run alone: npx tsx bench/parts/search.ts [--quick]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  createLoaderTools,
  indexServers,
  ManifestIndex,
  McpConnectionManager,
  silentLogger,
  toFunctionDefinitions,
  type LoaderServers,
  type LoaderTool,
  type McpServerConfig,
} from '../../src/index.js';
import { SERVER_LIST_LIMIT } from '../../src/tools/server-catalog.js';
import { referenceServersScenario } from '../lib/context-size.js';
import { absoluteTarget, emitRows, hasFlag, isMet, progress, ratioTarget, type BenchRow } from '../lib/report.js';
import { syntheticServers, type CatalogueServer } from '../lib/search-catalogue.js';
import { LABELLED_QUERIES } from '../lib/search-queries.js';
import { formatBytes, formatMs, median, roundOrder } from '../lib/stats.js';

const quick = hasFlag('quick');
const FIRST_RESULT_ROUNDS = quick ? 2 : 7;
const LATENCY_PASSES = quick ? 3 : 20;
const DEFINITION_SIZES = [10, 100, 1_000, 10_000];

type SearchAnswer = { tools: Array<{ server: string; tool: string }> };

/** Never started: these servers exist only in the index. */
const unstarted = (name: string): McpServerConfig => ({ command: 'never-started', args: [name] });

function recordCatalogue(index: ManifestIndex, servers: LoaderServers, catalogue: CatalogueServer[]): void {
  for (const server of catalogue) {
    index.record(server.name, unstarted(server.name), { tools: server.tools, resources: [], resourceTemplates: [], prompts: [] });
    servers[server.name] = { config: unstarted(server.name), description: server.description };
  }
}

function loaderTools(servers: LoaderServers, index: ManifestIndex | false) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  const tools = createLoaderTools({ manager, servers, manifestIndex: index });
  const named = (name: string) => tools.find((tool) => tool.name === name) as LoaderTool;
  return { manager, tools, search: named('search_mcp_tools'), call: named('call_mcp_tool') };
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

async function relevance(search: LoaderTool): Promise<{ recall1: number; recall5: number; misses: string[] }> {
  let at1 = 0;
  let at5 = 0;
  const misses: string[] = [];
  for (const { query, relevant } of LABELLED_QUERIES) {
    const answer = (await search.execute({ query, limit: 5 })).data as SearchAnswer;
    const found = answer.tools.map(({ server, tool }) => `${server}/${tool}`);
    const rank = found.findIndex((name) => relevant.includes(name));
    if (rank === 0) at1++;
    if (rank >= 0) at5++;
    else misses.push(`"${query}" → ${found.slice(0, 3).join(', ') || 'nothing'} (wanted ${relevant[0]})`);
  }
  return { recall1: at1 / LABELLED_QUERIES.length, recall5: at5 / LABELLED_QUERIES.length, misses };
}

async function searchLatency(folder: string): Promise<{ tools: number; medianMs: number; p95Ms: number; buildMs: number }> {
  const index = new ManifestIndex({ path: path.join(folder, 'large-index.json') });
  const servers: LoaderServers = {};
  for (let copy = 0; copy < 10; copy++) recordCatalogue(index, servers, syntheticServers(copy));
  const { manager, search } = loaderTools(servers, index);
  try {
    const started = performance.now();
    const first = (await search.execute({ query: LABELLED_QUERIES[0]!.query })).data as SearchAnswer;
    const buildMs = performance.now() - started;
    if (!first) throw new Error('search gave no answer');
    const times: number[] = [];
    for (let pass = 0; pass < LATENCY_PASSES; pass++) {
      for (const { query } of LABELLED_QUERIES) {
        const before = performance.now();
        await search.execute({ query });
        times.push(performance.now() - before);
      }
    }
    times.sort((a, b) => a - b);
    return { tools: Object.keys(servers).length * 10, medianMs: median(times), p95Ms: times[Math.floor(times.length * 0.95)]!, buildMs };
  } finally {
    await manager.dispose();
  }
}

function definitionBytes(count: number, index: ManifestIndex): number {
  const chosen: CatalogueServer[] = [];
  for (let copy = 0; chosen.length < count; copy++) chosen.push(...syntheticServers(copy).slice(0, count - chosen.length));
  const servers: LoaderServers = {};
  // Indexed as far as load_mcp lists servers (its lines then carry tool counts, and search is
  // offered); beyond that what is indexed changes no definition, and recording 10,000 would only slow the bench.
  recordCatalogue(index, servers, chosen.slice(0, SERVER_LIST_LIMIT));
  for (const server of chosen.slice(SERVER_LIST_LIMIT)) {
    servers[server.name] = { config: unstarted(server.name), description: server.description };
  }
  const { manager, tools } = loaderTools(servers, index);
  void manager.dispose();
  return bytesOf(toFunctionDefinitions(tools));
}

/** One round of each side: the search and call through the loader tools on a fresh manager, and a raw SDK client. */
async function firstResultRounds(everything: McpServerConfig, index: ManifestIndex): Promise<{ ours: number[]; raw: number[] }> {
  const ours: number[] = [];
  const raw: number[] = [];
  const sides = {
    ours: async () => {
      const { manager, search, call } = loaderTools({ everything: { config: everything } }, index);
      try {
        const started = performance.now();
        const found = ((await search.execute({ query: 'add two numbers' })).data as SearchAnswer).tools[0]!;
        const result = await call.execute({ server: found.server, tool: found.tool, arguments: { a: 2, b: 3 } });
        const elapsed = performance.now() - started;
        if (result.isError || !result.text.includes('5')) throw new Error(`unexpected result: ${result.text}`);
        ours.push(elapsed);
      } finally {
        await manager.dispose();
      }
    },
    raw: async () => {
      const started = performance.now();
      const client = new Client({ name: 'bench-raw', version: '1.0.0' }, { capabilities: {} });
      await client.connect(new StdioClientTransport({ command: everything.command!, args: everything.args ?? [], stderr: 'ignore' }));
      await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      raw.push(performance.now() - started);
      await client.close();
    },
  };
  // Warm-up, not counted: the OS file cache for node and the server, and the JIT for both sides' code.
  await sides.raw();
  await sides.ours();
  raw.length = 0;
  ours.length = 0;
  for (let round = 0; round < FIRST_RESULT_ROUNDS; round++) {
    for (const side of roundOrder(['ours', 'raw'] as const, round)) await sides[side]();
    progress(`search first result round ${round + 1}/${FIRST_RESULT_ROUNDS}: ours ${formatMs(ours.at(-1)!)}, raw ${formatMs(raw.at(-1)!)}`);
  }
  return { ours, raw };
}

async function main(): Promise<void> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-search-'));
  const reference = referenceServersScenario();
  const rows: BenchRow[] = [];
  try {
    const index = new ManifestIndex({ path: path.join(folder, 'mcp-index.json') });
    const servers: LoaderServers = { ...reference.servers };
    const configs = Object.fromEntries(Object.entries(reference.servers).map(([name, entry]) => [name, (entry as { config: McpServerConfig }).config]));
    const outcomes = await indexServers({ servers: configs, index, managerOptions: { logger: silentLogger } });
    const failed = outcomes.filter((outcome) => !outcome.ok);
    if (failed.length > 0) throw new Error(`could not index the reference servers: ${JSON.stringify(failed)}`);
    recordCatalogue(index, servers, syntheticServers());

    const { manager, tools, search } = loaderTools(servers, index);
    const { recall1, recall5, misses } = await relevance(search);
    for (const miss of misses) progress(`missed at 5: ${miss}`);
    const indexedTools = outcomes.reduce((sum, outcome) => sum + (outcome.ok ? outcome.tools : 0), 0) + 1_000;
    const loaderBytes = bytesOf(toFunctionDefinitions(tools));
    const eager: unknown[] = [];
    for (const name of Object.keys(servers)) {
      const lookup = index.lookup(name, (servers[name] as { config: McpServerConfig }).config);
      if (lookup.status !== 'fresh') throw new Error(`${name} is not indexed`);
      for (const { name: tool, description, inputSchema } of lookup.entry.manifest.tools) eager.push({ name: tool, description, parameters: inputSchema });
    }
    const eagerBytes = bytesOf(eager);
    await manager.dispose();

    const recallTarget = absoluteTarget('>=', 0.9, '0.9');
    rows.push({
      part: 'search',
      id: 'search.recall-at-5',
      benchmark: `Search: recall@5 of ${LABELLED_QUERIES.length} labelled user queries over ${indexedTools.toLocaleString('en-US')} tools on ${Object.keys(servers).length} servers`,
      ours: recall5.toFixed(3),
      baseline: '—',
      target: recallTarget,
      met: isMet(recallTarget, recall5, undefined),
      data: { recall1, recall5, misses, queries: LABELLED_QUERIES.length, tools: indexedTools },
      note: `recall@1 ${recall1.toFixed(3)}; missed at 5: ${misses.length === 0 ? 'none' : misses.join('; ')}`,
    });
    rows.push({
      part: 'search',
      id: 'search.recall-at-1',
      benchmark: 'Search: recall@1 of the same queries',
      ours: recall1.toFixed(3),
      baseline: '—',
      data: { recall1 },
    });

    const contextTarget = ratioTarget('<=', 0.05);
    const contextRatio = loaderBytes / eagerBytes;
    rows.push({
      part: 'search',
      id: 'search.context',
      benchmark: `Search: context bytes, the four loader tools vs eager definitions of all ${indexedTools.toLocaleString('en-US')} indexed tools`,
      ours: formatBytes(loaderBytes),
      baseline: formatBytes(eagerBytes),
      ratio: contextRatio,
      target: contextTarget,
      met: isMet(contextTarget, loaderBytes, contextRatio),
      data: { loaderBytes, eagerBytes, tools: indexedTools },
      note: `${(100 * (1 - contextRatio)).toFixed(1)}% smaller`,
    });

    const latency = await searchLatency(folder);
    progress(`search latency at ${latency.tools} tools: median ${latency.medianMs.toFixed(2)} ms, p95 ${latency.p95Ms.toFixed(2)} ms, first search (builds the ranking) ${formatMs(latency.buildMs)}`);
    const latencyTarget = absoluteTarget('<=', 5, '5 ms');
    rows.push({
      part: 'search',
      id: 'search.latency.10000',
      benchmark: `Search: median latency of search_mcp_tools.execute with ${latency.tools.toLocaleString('en-US')} indexed tools (${LABELLED_QUERIES.length} queries × ${LATENCY_PASSES})`,
      ours: `${latency.medianMs.toFixed(2)} ms`,
      baseline: '—',
      target: latencyTarget,
      met: isMet(latencyTarget, latency.medianMs, undefined),
      data: { ...latency },
      note: `p95 ${latency.p95Ms.toFixed(2)} ms; the first search after a change builds the ranking: ${formatMs(latency.buildMs)}`,
    });

    const definitionTarget = absoluteTarget('<=', 4096, '4 KB');
    for (const count of DEFINITION_SIZES) {
      const bytes = definitionBytes(count, new ManifestIndex({ path: path.join(folder, `definitions-${count}.json`) }));
      rows.push({
        part: 'search',
        id: `search.definitions.${count}`,
        benchmark: `Loader definitions (four tools, toFunctionDefinitions) with ${count.toLocaleString('en-US')} configured servers`,
        ours: formatBytes(bytes),
        baseline: '—',
        target: definitionTarget,
        met: isMet(definitionTarget, bytes, undefined),
        data: { bytes, servers: count },
      });
    }

    const everything = configs.everything!;
    const firstResult = await firstResultRounds(everything, index);
    const ratios = firstResult.ours.map((ours, round) => ours / firstResult.raw[round]!);
    const firstTarget = ratioTarget('<=', 1.2);
    const ratio = median(ratios);
    rows.push({
      part: 'search',
      id: 'search.first-result',
      benchmark: 'Search: search_mcp_tools → call_mcp_tool on a server not started yet (server-everything get-sum) vs one raw SDK connect + call',
      ours: formatMs(median(firstResult.ours)),
      baseline: formatMs(median(firstResult.raw)),
      ratio,
      target: firstTarget,
      met: isMet(firstTarget, median(firstResult.ours), ratio),
      data: { ...firstResult, ratios },
      note: 'median of per-round ratios; both sides in one process, rounds interleaved',
    });
  } finally {
    reference.cleanup?.();
    rmSync(folder, { recursive: true, force: true });
  }
  emitRows(rows);
}

await main();

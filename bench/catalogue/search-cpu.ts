/**
 * CPU time of `ToolSearch.searchTools` alone at 10,000 tools (the catalogue copied, as the bench's
 * latency part does), over the queries of the sets tuned on, so that two versions of the search code
 * can be timed side by side in alternating runs (the wall time of a shared machine follows its load).
 * With --dump, writes every tuned query's first ten results, in order, for comparing two rankings.
 *
 * npx tsx bench/catalogue/search-cpu.ts [--src <a copy's src folder>] [--passes 3] [--tools 10000] [--changes 9] [--dump <file>]
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { QUERY_SET_HISTORY, QUERY_SETS, labelledQueries, largeCatalogue } from './catalogue.js';

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const src = path.resolve(option('--src') ?? 'src');
const passes = Number(option('--passes') ?? 3);
const dump = option('--dump');
const TOOLS = Number(option('--tools') ?? 10_000);
const CHANGE_ROUNDS = Number(option('--changes') ?? 9);

const { ToolSearch } = (await import(pathToFileURL(path.join(src, 'search/index.ts')).href)) as typeof import('../../src/search/index.js');
const { indexedInstructions } = (await import(pathToFileURL(path.join(src, 'manifest-index/indexed-manifest.ts')).href)) as typeof import('../../src/manifest-index/indexed-manifest.js');

// The blind set stays out: its queries are judged by their figures alone.
const queries = QUERY_SETS.filter((set) => set !== 'held-out-15' && QUERY_SET_HISTORY[set].tunedOn).flatMap((set) => labelledQueries(set).map(({ query }) => query));
const catalogue = largeCatalogue(TOOLS);
const search = new ToolSearch();
for (const { name, description, instructions, tools } of catalogue) search.setServer({ name, description, instructions: indexedInstructions(instructions) }, tools);

const cpuMs = (before: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)]!;

search.searchTools(queries[0]!, 5);
const times: number[] = [];
const started = process.cpuUsage();
for (let pass = 0; pass < passes; pass++) {
  for (const query of queries) {
    const before = process.cpuUsage();
    search.searchTools(query, 5);
    times.push(cpuMs(before));
  }
}
const totalMs = cpuMs(started);
const afterChange: number[] = [];
for (let round = 0; round < CHANGE_ROUNDS; round++) {
  const changed = catalogue[(round * 37) % catalogue.length]!;
  const tools = changed.tools.map((tool, at) => (at === 0 ? { ...tool, description: `${tool.description ?? ''} (revision ${round})` } : tool));
  const before = process.cpuUsage();
  search.setServer({ name: changed.name, description: changed.description, instructions: indexedInstructions(changed.instructions) }, tools);
  search.searchTools(queries[round % queries.length]!, 5);
  afterChange.push(cpuMs(before));
}
if (dump) {
  const fresh = new ToolSearch();
  for (const { name, description, instructions, tools } of catalogue) fresh.setServer({ name, description, instructions: indexedInstructions(instructions) }, tools);
  const lines = queries.map((query) => `${query}\t${fresh.searchTools(query, 10).map(({ server, tool, score }) => `${server}/${tool.name}:${score}`).join(' ')}`);
  writeFileSync(dump, `${lines.join('\n')}\n`);
}
console.log(
  JSON.stringify({
    src,
    tools: search.toolCount,
    queries: times.length,
    medianMs: +median(times).toFixed(3),
    p95Ms: +p95(times).toFixed(3),
    meanMs: +(totalMs / times.length).toFixed(3),
    afterChangeMs: +median(afterChange).toFixed(2),
    afterChangeP95Ms: +p95(afterChange).toFixed(2),
    load: (await import('node:os')).loadavg()[0]!.toFixed(2),
  }),
);

/**
 * Ranks one query set over the catalogue with the ranking alone (as search_mcp_tools does for
 * indexed servers: each server with its configured description and its recorded instructions,
 * kept as the index keeps them) and prints recall@1/@5 and every
 * query whose tool was not first, for a set tuned on (QUERY_SET_HISTORY); of a set never tuned on,
 * the figures alone, as the bench does: its misses once read would make it one more set tuned on.
 *
 * npx tsx bench/catalogue/evaluate.ts [--set dev|held-out|held-out-2|…]   (default dev)
 */
import { indexedInstructions } from '../../src/manifest-index/index.js';
import { ToolSearch } from '../../src/search/index.js';
import { QUERY_SET_HISTORY, QUERY_SETS, catalogueServers, isQuerySet, labelledQueries } from './catalogue.js';

const at = process.argv.indexOf('--set');
const set = at >= 0 ? process.argv[at + 1] : 'dev';
if (!isQuerySet(set)) throw new Error(`--set takes ${QUERY_SETS.join(', ')}`);

const search = new ToolSearch();
for (const { name, description, instructions, tools } of catalogueServers()) {
  search.setServer({ name, description, instructions: indexedInstructions(instructions) }, tools);
}
const queries = labelledQueries(set);
const showMisses = QUERY_SET_HISTORY[set].tunedOn;
let first = 0;
let inFive = 0;
for (const { query, relevant } of queries) {
  const found = search.searchTools(query, 5).map(({ server, tool }) => `${server}/${tool.name}`);
  const rank = found.findIndex((name) => relevant.includes(name));
  if (rank === 0) first++;
  if (rank >= 0) inFive++;
  if (!showMisses) continue;
  if (rank < 0) console.log(`MISS  "${query}" → ${found.slice(0, 3).join(', ')} (wanted ${relevant.join(' | ')})`);
  if (rank > 0) console.log(`#${rank + 1}    "${query}" → ${found[0]} (wanted ${relevant.join(' | ')})`);
}
console.log(`${set}: ${queries.length} queries over ${search.toolCount} tools: recall@1 ${(first / queries.length).toFixed(3)}, recall@5 ${(inFive / queries.length).toFixed(3)}`);

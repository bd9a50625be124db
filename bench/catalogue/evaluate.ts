/**
 * Ranks one query set over the catalogue with the ranking alone (ranking.ts) and prints
 * recall@1/@5 and every query whose tool was not first, for a set tuned on (QUERY_SET_HISTORY); of
 * a set never tuned on, the figures alone, as the bench does: its misses once read would make it
 * one more set tuned on.
 *
 * npx tsx bench/catalogue/evaluate.ts [--set dev|held-out|held-out-2|…]   (default dev)
 */
import { recallOf, shownMisses } from '../lib/recall.js';
import { QUERY_SET_HISTORY, QUERY_SETS, isQuerySet, labelledQueries } from './catalogue.js';
import { catalogueSearch, toolRanking } from './ranking.js';

const at = process.argv.indexOf('--set');
const set = at >= 0 ? process.argv[at + 1] : 'dev';
if (!isQuerySet(set)) throw new Error(`--set takes ${QUERY_SETS.join(', ')}`);

const search = catalogueSearch();
const queries = labelledQueries(set);
const recall = await recallOf(toolRanking(search), queries);
for (const miss of shownMisses(QUERY_SET_HISTORY[set], recall)) console.log(miss);
console.log(`${set}: ${queries.length} queries over ${search.toolCount} tools: recall@1 ${recall.recall1.toFixed(3)}, recall@5 ${recall.recall5.toFixed(3)}`);

/**
 * The catalogue ranked as search_mcp_tools ranks indexed servers, with the ranking alone: each
 * server with its configured description and its recorded instructions, kept as the index keeps
 * them. For evaluate.ts and cross-validate.ts.
 */
import { indexedInstructions } from '../../src/manifest-index/index.js';
import type { Associations } from '../../src/search/tool-search.js';
import { ToolSearch } from '../../src/search/index.js';
import type { Ranking } from '../lib/recall.js';
import { catalogueServers } from './catalogue.js';

export function catalogueSearch(options: { associations?: Associations } = {}): ToolSearch {
  const search = new ToolSearch([], [], options);
  for (const { name, description, instructions, tools } of catalogueServers()) {
    search.setServer({ name, description, instructions: indexedInstructions(instructions) }, tools);
  }
  return search;
}

/** The first five tools, as `server/tool`. */
export function toolRanking(search: ToolSearch): Ranking {
  return async (query) => search.searchTools(query, 5).map(({ server, tool }) => `${server}/${tool.name}`);
}

/**
 * Recall@1 and @5 of labelled queries, over any ranking (the bench's is search_mcp_tools, with or
 * without the semantic stage), with the queries whose tool was not first.
 */
import type { LoaderTool } from '../../src/index.js';
import type { LabelledQuery } from '../catalogue/catalogue.js';

/** `server/tool` names, best first. */
export type Ranking = (query: string) => Promise<string[]>;

export interface Recall {
  recall1: number;
  recall5: number;
  /** Queries whose expected tool was not first: where it came, and what came first. */
  misses: string[];
}

/** The first five tools search_mcp_tools returns, as the model would get them. */
export function searchRanking(search: LoaderTool): Ranking {
  return async (query) => {
    const answer = (await search.execute({ query, limit: 5 })).data as { tools: Array<{ server: string; tool: string }> };
    return answer.tools.map(({ server, tool }) => `${server}/${tool}`);
  };
}

export async function recallOf(rank: Ranking, queries: readonly LabelledQuery[]): Promise<Recall> {
  let at1 = 0;
  let at5 = 0;
  const misses: string[] = [];
  for (const { query, relevant } of queries) {
    const found = (await rank(query)).slice(0, 5);
    const position = found.findIndex((name) => relevant.includes(name));
    if (position === 0) at1++;
    if (position >= 0) at5++;
    if (position !== 0) misses.push(`"${query}" → ${position < 0 ? 'not in 5' : `#${position + 1}`}, first ${found[0] ?? 'nothing'} (wanted ${relevant.join(' or ')})`);
  }
  return { recall1: at1 / queries.length, recall5: at5 / queries.length, misses };
}

/** The set the recall targets are checked on: the last never tuned on, or none when every set was. */
export function blindSet<Set extends { tunedOn: boolean }>(sets: readonly Set[]): Set | undefined {
  return sets.findLast((set) => !set.tunedOn);
}

/** The misses the bench may show of a set: none of a blind one, whose misses once read would make it one more set tuned on. */
export function shownMisses({ tunedOn }: { tunedOn: boolean }, recall: Recall): string[] {
  return tunedOn ? recall.misses : [];
}

/**
 * The search bench's recall: a query counts at 1 when one of its tools comes first, at 5 when one
 * is among the first five; every other query is listed with where its tool came.
 */
import { describe, expect, it } from 'vitest';
import { recallOf, type Ranking } from '../bench/lib/recall.js';

const rankings: Record<string, string[]> = {
  'add two numbers': ['everything/get-sum', 'everything/echo'],
  'take a screenshot': ['everything/echo', 'playwright/browser_take_screenshot', 'puppeteer/puppeteer_screenshot'],
  'read a file': ['memory/read_graph', 'fs/list', 'fs/tree', 'fs/info', 'fs/search', 'filesystem/read_text_file'],
  'forget Alice': [],
};
const ranking: Ranking = async (query) => rankings[query]!;

describe('recall of labelled queries', () => {
  it('counts a tool first at 1 and 5, in the first five at 5 only, any of several tools, and nothing past the fifth', async () => {
    const recall = await recallOf(ranking, [
      { query: 'add two numbers', relevant: ['everything/get-sum'] },
      { query: 'take a screenshot', relevant: ['puppeteer/puppeteer_screenshot', 'playwright/browser_take_screenshot'] },
      { query: 'read a file', relevant: ['filesystem/read_text_file'] },
      { query: 'forget Alice', relevant: ['memory/delete_entities'] },
    ]);
    expect(recall.recall1).toBe(1 / 4);
    expect(recall.recall5).toBe(2 / 4);
    expect(recall.misses).toEqual([
      '"take a screenshot" → #2, first everything/echo (wanted puppeteer/puppeteer_screenshot or playwright/browser_take_screenshot)',
      '"read a file" → not in 5, first memory/read_graph (wanted filesystem/read_text_file)',
      '"forget Alice" → not in 5, first nothing (wanted memory/delete_entities)',
    ]);
  });
});

/**
 * The search bench's recall: a query counts at 1 when one of its tools comes first, at 5 when one
 * is among the first five; every other query is listed with where its tool came, but shown only
 * for sets tuned on; the targets are checked on the last set never tuned on.
 */
import { describe, expect, it } from 'vitest';
import { learnAssociations, trainingPairs } from '../bench/catalogue/associations.js';
import { QUERY_SETS, QUERY_SET_HISTORY } from '../bench/catalogue/catalogue.js';
import { blindSet, recallOf, shownMisses, type Ranking } from '../bench/lib/recall.js';

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

describe('sets tuned on and blind sets', () => {
  const recall = { recall1: 0.5, recall5: 1, misses: ['"q" → #2, first a/b (wanted c/d)'] };

  it('shows the misses of a set tuned on and never those of a blind set', () => {
    expect(shownMisses({ tunedOn: true }, recall)).toEqual(recall.misses);
    expect(shownMisses({ tunedOn: false }, recall)).toEqual([]);
  });

  it('checks the targets on the last set never tuned on, and on none when every set was tuned on', () => {
    const sets = [
      { set: 'dev', tunedOn: true },
      { set: 'blind-1', tunedOn: false },
      { set: 'tuned-later', tunedOn: true },
      { set: 'blind-2', tunedOn: false },
    ];
    expect(blindSet(sets)?.set).toBe('blind-2');
    expect(blindSet(sets.filter(({ tunedOn }) => tunedOn))).toBeUndefined();
  });
});

describe('word associations learned from the query sets', () => {
  it('refuses every blind set, alone or among sets tuned on, before reading it', () => {
    const blind = QUERY_SETS.filter((set) => !QUERY_SET_HISTORY[set].tunedOn);
    expect(blind.length).toBeGreaterThan(0);
    for (const set of blind) {
      expect(() => trainingPairs([set])).toThrow(`tuned on only, not ${set}`);
      expect(() => learnAssociations(['dev', set])).toThrow(`tuned on only, not ${set}`);
    }
  });

  it('learns from sets tuned on: a query word goes with words of the tools it wanted, never with a value', () => {
    const associations = learnAssociations(['dev', 'held-out']);
    expect(associations.size).toBeGreaterThan(0);
    for (const [word, list] of associations) {
      expect(word).not.toMatch(/\d/);
      for (const [other, strength] of list) {
        expect(other).not.toBe(word);
        expect(strength).toBeGreaterThan(0);
        expect(strength).toBeLessThanOrEqual(1);
      }
    }
  });
});

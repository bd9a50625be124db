/**
 * The stemmer's doubled consonant, as Porter's step 1b reads it: an "-ed" or "-ing" form whose
 * consonant doubled meets its word at any length ("mapping" → map, "logged" → log), except a verb
 * that is written with the double (WordNet's "add", "err", "stuff"), whose forms keep it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { WORDNET_DICT } from '../scripts/build-thesaurus.js';
import { stem, ToolSearch } from '../src/search/index.js';
import { DOUBLED_VERBS } from '../src/search/tokenize.js';

function tool(name: string, description: string): Tool {
  return { name, description, inputSchema: { type: 'object', properties: {} } };
}

describe('a consonant doubled before "-ed" or "-ing"', () => {
  it('is undone in short words too: mapping, setting, running, logged, padding, pinned, tagging meet their word', () => {
    for (const [form, word] of [
      ['mapping', 'map'],
      ['mapped', 'map'],
      ['setting', 'set'],
      ['running', 'run'],
      ['logged', 'log'],
      ['padding', 'pad'],
      ['pinned', 'pin'],
      ['tagging', 'tag'],
    ]) {
      expect(stem(form!), form).toBe(stem(word!));
    }
  });

  it('stays in a verb written with it: "adding" and "added" meet "add", "erred" meets "err" (not Porter\u2019s "ad", "er")', () => {
    expect(stem('adding')).toBe(stem('add'));
    expect(stem('added')).toBe(stem('add'));
    expect(stem('erred')).toBe(stem('err'));
    expect(stem('add')).not.toBe(stem('ad'));
  });

  it('stays as before in a double l, s or z, which Porter keeps: "passed" meets "pass", "buzzing" meets "buzz"', () => {
    expect(stem('passed')).toBe(stem('pass'));
    expect(stem('buzzing')).toBe(stem('buzz'));
    expect(stem('installing')).toBe(stem('install'));
  });

  it('the verbs that keep it are exactly WordNet\u2019s verbs ending in a doubled consonant other than l, s or z', () => {
    const wordnet = readFileSync(join(WORDNET_DICT, 'index.verb'), 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[0]!)
      .filter((lemma) => /^[a-z]+$/.test(lemma) && /([bcdfghjkmnpqrtvwxy])\1$/.test(lemma));
    expect([...DOUBLED_VERBS].sort()).toEqual(wordnet.sort());
  });

  it('lets a query word meet a tool that says it in its "-ing" form: "map the fields" finds get_mappings before get_fields', () => {
    const search = new ToolSearch([{ name: 'search', description: 'A search engine' }], [
      { server: 'search', tool: tool('get_mappings', 'Get the field mappings of an index') },
      { server: 'search', tool: tool('get_fields', 'Get the fields of an index') },
    ]);
    expect(search.searchTools('map the fields of the index', 2).map(({ tool }) => tool.name)).toEqual(['get_mappings', 'get_fields']);
  });
});

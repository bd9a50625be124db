/**
 * The general thesaurus under search (WordNet 3.1, data/thesaurus.txt): it relates a word to its
 * synonyms, derived forms, narrower and broader words, a query's expansion stays bounded and holds
 * only words the index has, the shipped file is exactly what WordNet and the stemmer make, and it
 * loads from where the built package puts it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { buildThesaurus, LICENSE_FILE, THESAURUS_FILE, WORDNET_DICT, wordnetLicense } from '../scripts/build-thesaurus.js';
import { shippedThesaurus, Thesaurus, type RelatedWords } from '../src/search/thesaurus.js';
import { parseQuery, THESAURUS_PER_QUERY, THESAURUS_PER_WORD } from '../src/search/tool-search.js';
import { nameRelatedTokens } from '../src/search/documents.js';
import { identifierTokens, textTokens } from '../src/search/tokenize.js';

const stemOf = (word: string) => textTokens(word)[0]!;
const relatedTo = (word: string): RelatedWords => shippedThesaurus().related(stemOf(word));
const anyRelation = (word: string) => Object.values(relatedTo(word)).flat();

/** Weights below the hand table's synonyms (0.35): the words WordNet added. */
const FROM_THESAURUS = 0.1;

describe('relations', () => {
  it('relates a verb to its derived noun: "memorize" to memory, "musical" to music', () => {
    expect(relatedTo('memorize').derived).toContain(stemOf('memory'));
    expect(relatedTo('musical').derived).toContain(stemOf('music'));
  });

  it('relates words of one sense: "automobile" to car, "photograph" to picture', () => {
    expect(relatedTo('automobile').synonym).toContain(stemOf('car'));
    expect(relatedTo('photograph').synonym).toContain(stemOf('picture'));
  });

  it('relates a word to narrower ones: "song" to ballad', () => {
    expect(relatedTo('song').narrower).toContain(stemOf('ballad'));
  });

  it('relates a word to broader ones, one level up: "chat" to conversation', () => {
    expect(relatedTo('chat').broader).toContain(stemOf('conversation'));
  });

  it('knows nothing of a word WordNet lacks, and relates no word to itself', () => {
    expect(anyRelation('xyzzyplugh')).toEqual([]);
    expect(anyRelation('remember')).not.toContain(stemOf('remember'));
  });
});

describe('a tool name\u2019s WordNet words (the document side)', () => {
  it('holds the synonyms and derived forms of the name\u2019s words, not the words themselves', () => {
    const name = identifierTokens('create_issue');
    const related = nameRelatedTokens(name);
    expect(related).toContain(stemOf('make'));
    expect(related).toContain(stemOf('publish'));
    for (const word of name) expect(related).not.toContain(word);
  });
});

describe('the file\u2019s lines', () => {
  // Lines sorted by stem; lists of line numbers in base 36: synonyms, derived forms, narrower words, broader words.
  const small = new Thesaurus('alpha\t1 2\nbeta\t\t0\ngamma\nomega\t\t\t0 1\n');

  it('finds the first, middle and last lines, and decodes their numbers into stems', () => {
    expect(small.related('alpha')).toEqual({ synonym: ['beta', 'gamma'], derived: [], narrower: [], broader: [] });
    expect(small.related('beta')).toEqual({ synonym: [], derived: ['alpha'], narrower: [], broader: [] });
    expect(small.related('gamma')).toEqual({ synonym: [], derived: [], narrower: [], broader: [] });
    expect(small.related('omega')).toEqual({ synonym: [], derived: [], narrower: ['alpha', 'beta'], broader: [] });
  });

  it('finds no line for a stem between or beyond them, nor in an empty file', () => {
    for (const stem of ['aaa', 'alph', 'betas', 'zeta', 'zzz']) expect(Object.values(small.related(stem)).flat(), stem).toEqual([]);
    expect(new Thesaurus('').size).toBe(0);
    expect(new Thesaurus('').related('alpha')).toEqual({ synonym: [], derived: [], narrower: [], broader: [] });
  });
});

describe('a query\u2019s expansion', () => {
  // Words with many relations each: the bounds, not WordNet, decide how much they add.
  const LONG_QUERY = 'buy car song photograph know make run set take give go get break play place point line call cut hold turn';

  it('adds at most THESAURUS_PER_WORD words to a query word and THESAURUS_PER_QUERY to a query', () => {
    const { groups } = parseQuery(LONG_QUERY);
    const added = groups.map((group) => [...group.values()].filter((weight) => weight <= FROM_THESAURUS).length);
    expect(Math.max(...added)).toBeLessThanOrEqual(THESAURUS_PER_WORD);
    expect(added.reduce((sum, count) => sum + count, 0)).toBe(THESAURUS_PER_QUERY);
  });

  it('adds only words the index holds', () => {
    const held = new Set([stemOf('car'), stemOf('music')]);
    const { groups } = parseQuery('rent an automobile with something musical', (term) => held.has(term));
    const added = groups.flatMap((group) => [...group].filter(([, weight]) => weight <= FROM_THESAURUS).map(([term]) => term));
    expect(added.sort()).toEqual([...held].sort());
  });
});

describe('the shipped file', () => {
  it('is what WordNet and the stemmer make (npm run thesaurus), with WordNet\u2019s licence beside it', () => {
    expect(readFileSync(THESAURUS_FILE, 'utf8') === buildThesaurus(WORDNET_DICT), 'data/thesaurus.txt is stale: run npm run thesaurus').toBe(true);
    expect(readFileSync(LICENSE_FILE, 'utf8')).toBe(wordnetLicense(WORDNET_DICT));
    expect(readFileSync(LICENSE_FILE, 'utf8')).toContain('WordNet 3.1 Copyright 2011 by Princeton University');
  }, 60_000);

  it('is in the package npm packs, licence included', () => {
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    expect(packed.status, packed.stderr).toBe(0);
    const [{ files }] = JSON.parse(packed.stdout) as [{ files: Array<{ path: string }> }];
    expect(files.map(({ path }) => path)).toEqual(expect.arrayContaining(['data/thesaurus.txt', 'data/WORDNET-LICENSE']));
  }, 60_000);

  const packageCopy = mkdtempSync(join(os.tmpdir(), 'mcp-thesaurus-'));
  afterAll(() => rmSync(packageCopy, { recursive: true, force: true }));

  it('loads from the built package\u2019s layout: dist/src/search beside data/', async () => {
    const built = join(packageCopy, 'dist', 'src', 'search', 'thesaurus.js');
    await build({ entryPoints: [new URL('../src/search/thesaurus.ts', import.meta.url).pathname], outfile: built, format: 'esm', platform: 'node', logLevel: 'silent' });
    mkdirSync(join(packageCopy, 'data'));
    copyFileSync(THESAURUS_FILE, join(packageCopy, 'data', 'thesaurus.txt'));
    const loaded = (await import(pathToFileURL(built).href)) as typeof import('../src/search/thesaurus.js');
    expect(loaded.thesaurusFile()).toBe(join(packageCopy, 'data', 'thesaurus.txt'));
    expect(loaded.shippedThesaurus().related(stemOf('memorize')).derived).toContain(stemOf('memory'));
  });
});

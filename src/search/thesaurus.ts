/**
 * A general thesaurus from WordNet 3.1 (data/thesaurus.txt, written by `npm run thesaurus`): for a
 * ranking word, the words WordNet relates to its most frequent sense — synonyms, derived forms
 * (remember → memory, music → musical), narrower words and broader ones (chat → conversation). It
 * reaches words no tool in a catalogue uses, which the hand synonym table and the catalogue's own
 * statistics cannot.
 *
 * The file is read once, when the first tool is indexed (its name's words are looked up) or the
 * first query asks, and each line is decoded when its word is first asked for.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const THESAURUS_RELATIONS = ['synonym', 'derived', 'narrower', 'broader'] as const;
export type ThesaurusRelation = (typeof THESAURUS_RELATIONS)[number];
export type RelatedWords = Readonly<Record<ThesaurusRelation, readonly string[]>>;

const NONE: RelatedWords = { synonym: [], derived: [], narrower: [], broader: [] };

/** From the source tree (src/search) or the built package (dist/src/search). */
const CANDIDATES = ['../../data/thesaurus.txt', '../../../data/thesaurus.txt'];

export function thesaurusFile(): string {
  for (const candidate of CANDIDATES) {
    const file = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(file)) return file;
  }
  throw new Error(`mcp-statechart: the search thesaurus (data/thesaurus.txt) is missing beside ${fileURLToPath(import.meta.url)}; reinstall the package.`);
}

/**
 * Lines sorted by stem, kept as the file's one string: a word is found by binary search over the
 * lines' starts, so loading makes no string per line (splitting the file into 70,000 lines cost
 * more than reading it).
 */
export class Thesaurus {
  private readonly starts: Int32Array;
  private readonly decoded = new Map<number, RelatedWords>();

  constructor(private readonly text: string) {
    let count = 0;
    for (let at = text.indexOf('\n'); at >= 0 && at < text.length - 1; at = text.indexOf('\n', at + 1)) count++;
    this.starts = new Int32Array(text.length === 0 ? 0 : count + 1);
    for (let line = 1, at = text.indexOf('\n'); line < this.starts.length; line++, at = text.indexOf('\n', at + 1)) this.starts[line] = at + 1;
  }

  get size(): number {
    return this.starts.length;
  }

  private line(at: number): string {
    const start = this.starts[at]!;
    const end = this.text.indexOf('\n', start);
    return this.text.slice(start, end < 0 ? undefined : end);
  }

  private stemAt(at: number): string {
    const start = this.starts[at]!;
    let end = start;
    while (end < this.text.length && this.text[end] !== '\t' && this.text[end] !== '\n') end++;
    return this.text.slice(start, end);
  }

  private lineOf(stem: string): number | undefined {
    let low = 0;
    let high = this.starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.stemAt(middle);
      if (found === stem) return middle;
      if (found < stem) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** The stems WordNet relates to a stem, best sense first; none for a word it does not know. */
  related(stem: string): RelatedWords {
    const at = this.lineOf(stem);
    if (at === undefined) return NONE;
    let words = this.decoded.get(at);
    if (!words) {
      const [, ...lists] = this.line(at).split('\t');
      const decode = (list: string | undefined) => (list ? list.split(' ').map((number) => this.stemAt(Number.parseInt(number, 36))) : []);
      words = { synonym: decode(lists[0]), derived: decode(lists[1]), narrower: decode(lists[2]), broader: decode(lists[3]) };
      this.decoded.set(at, words);
    }
    return words;
  }
}

let shipped: Thesaurus | undefined;

/** The thesaurus the package ships, read on first use. */
export function shippedThesaurus(): Thesaurus {
  // The file is ASCII: read as latin1, one byte a character, no UTF-8 decoding.
  shipped ??= new Thesaurus(readFileSync(thesaurusFile(), 'latin1'));
  return shipped;
}

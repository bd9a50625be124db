/**
 * BM25F over documents of weighted fields, through an inverted index that takes documents in and
 * out one at a time: a change of one server re-indexes that server's documents only, and a query
 * costs the postings of its own words.
 *
 * Keyword stuffing gains nothing: a word counts at most TERM_CAP times in a field, each field's
 * count is normalised by that field's length against its average (a description of 500 keywords
 * weighs each of them little), and the per-document sum saturates (k1).
 */

const K1 = 1.2;
/** Occurrences of one word in one field counted at most: the fifth "email" in a description adds nothing. */
export const TERM_CAP = 2;
/** Documents beyond which common synonyms are skipped (see score). */
const PRUNE_ABOVE = 2_000;

/** The shortest word start wordsStartingWith answers for. */
const WORD_START_LENGTH = 3;
/**
 * The longest word start kept: a word of n characters has n starts, so a server's 5 MB word (a
 * description of one letter repeated) made millions of entries and stalled the tools' creation.
 */
const LONGEST_WORD_START = 64;
const NO_WORDS: ReadonlySet<string> = new Set();
/**
 * Postings held at most in the cache of terms' scores (TermPostings: 12 bytes each, 12 MB): a
 * stream of queries naming ever more of a large vocabulary empties it rather than grow it.
 */
const MAX_CACHED_POSTINGS = 1_000_000;

/**
 * A term's documents, in the order its fields' postings name them, each with its length-normalised
 * counts summed over the fields: what a query reads of the term, for the index as it stands.
 */
interface TermPostings {
  docs: Int32Array;
  tf: Float64Array;
}

export interface FieldSpec {
  weight: number;
  /** How much the field's length normalises its counts (0: not at all, 1: fully). */
  b: number;
}

/** A document: its words per field, in the order of the index's field specs. */
export type FieldTokens = ReadonlyArray<readonly string[]>;

/** Query words with their weights; a document gets credit for the group once, for its best word. */
export type QueryGroup = ReadonlyMap<string, number>;

/**
 * Per-document sums of one query, in arrays kept from query to query: a query at 10,000 tools
 * allocates nothing per matching document (the garbage of per-query maps cost more than the
 * scoring on a busy machine).
 */
export class ScoreSheet {
  score = new Float64Array(0);
  coverage = new Float64Array(0);
  /** The documents scored since the last clear, each once, in the order they were first scored. */
  readonly docs: number[] = [];
  /**
   * Whether a document is in `docs`. Its score cannot tell: a gain of zero, or gains that cancel,
   * leave it at zero, and a document listed twice has every later pass over `docs` (the coverage
   * factor, the removal penalty) applied to it twice.
   */
  private listed = new Uint8Array(0);

  /** Empties the sheet for documents numbered below `size`. */
  clear(size: number): void {
    for (const doc of this.docs) {
      this.score[doc] = 0;
      this.coverage[doc] = 0;
      this.listed[doc] = 0;
    }
    this.docs.length = 0;
    if (this.score.length < size) {
      this.score = new Float64Array(grown(size));
      this.coverage = new Float64Array(this.score.length);
      this.listed = new Uint8Array(this.score.length);
    }
  }

  /** A document's whole score, zero or below included (a similarity, not a sum of gains): once per document between clears. */
  set(doc: number, score: number): void {
    this.list(doc);
    this.score[doc] = score;
  }

  add(doc: number, gain: number, coverage: number): void {
    this.list(doc);
    this.score[doc]! += gain;
    this.coverage[doc]! += coverage;
  }

  private list(doc: number): void {
    if (this.listed[doc]) return;
    this.listed[doc] = 1;
    this.docs.push(doc);
  }
}

const grown = (size: number) => Math.max(64, 2 ** Math.ceil(Math.log2(size)));

export class FieldIndex {
  /** Per field: term → (document → occurrences, capped). */
  private readonly postings: Array<Map<string, Map<number, number>>>;
  /** Term → documents holding it in any field. */
  private readonly documentFrequency = new Map<string, number>();
  /** A word's start (WORD_START_LENGTH letters or more, short of the whole word) → the words held that begin with it; kept as words come and go. */
  private readonly byStart = new Map<string, Set<string>>();
  /** Per document, every distinct term, for taking it out again; undefined for a free number. */
  private readonly terms: Array<string[] | undefined> = [];
  private readonly free: number[] = [];
  /** Field lengths, document by document (`doc * fields + field`). */
  private lengths = new Float64Array(0);
  private readonly totalLengths: Float64Array;
  private count = 0;
  /**
   * Term → what queries read of it, worked out once per term between changes: walking its postings
   * maps field by field cost a query at 10,000 tools more than all the rest of its scoring. Emptied
   * by any change (a document's length moves every field's average) and at MAX_CACHED_POSTINGS.
   */
  private readonly termPostings = new Map<string, TermPostings>();
  private cachedPostings = 0;
  /** Scratch per document for one query, zero between queries. */
  private pseudo = new Float64Array(0);
  private best = new Float64Array(0);
  private matched = new Float64Array(0);

  constructor(
    private readonly fields: readonly FieldSpec[],
    private readonly maxCachedPostings = MAX_CACHED_POSTINGS,
  ) {
    this.postings = fields.map(() => new Map());
    this.totalLengths = new Float64Array(fields.length);
  }

  get size(): number {
    return this.count;
  }

  /** Documents are numbered below this. */
  get capacity(): number {
    return this.terms.length;
  }

  /**
   * Adds a document and returns its number. `extraTerms` per field are indexed without counting
   * in the field's length (the word pairs that phrase matching looks up).
   */
  add(fields: FieldTokens, extraTerms: FieldTokens = []): number {
    this.forgetTermPostings();
    const doc = this.free.pop() ?? this.terms.length;
    const width = this.fields.length;
    if (this.lengths.length < (doc + 1) * width) {
      const lengths = new Float64Array(grown(doc + 1) * width);
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    const terms = new Set<string>();
    fields.forEach((tokens, field) => {
      this.lengths[doc * width + field] = tokens.length;
      this.totalLengths[field]! += tokens.length;
      this.post(field, doc, tokens, terms);
      this.post(field, doc, extraTerms[field] ?? [], terms);
    });
    for (const term of terms) {
      const frequency = this.documentFrequency.get(term) ?? 0;
      if (frequency === 0) {
        this.startsOf(term, (start) => {
          const words = this.byStart.get(start);
          if (words) words.add(term);
          else this.byStart.set(start, new Set([term]));
        });
      }
      this.documentFrequency.set(term, frequency + 1);
    }
    this.terms[doc] = [...terms];
    this.count++;
    return doc;
  }

  remove(doc: number): void {
    const terms = this.terms[doc];
    if (!terms) return;
    this.forgetTermPostings();
    for (const term of terms) {
      for (const field of this.postings) {
        const list = field.get(term);
        if (list?.delete(doc) && list.size === 0) field.delete(term);
      }
      const frequency = this.documentFrequency.get(term)! - 1;
      if (frequency === 0) {
        this.documentFrequency.delete(term);
        this.startsOf(term, (start) => {
          const words = this.byStart.get(start)!;
          words.delete(term);
          if (words.size === 0) this.byStart.delete(start);
        });
      } else this.documentFrequency.set(term, frequency);
    }
    const width = this.fields.length;
    for (let field = 0; field < width; field++) {
      this.totalLengths[field]! -= this.lengths[doc * width + field]!;
      this.lengths[doc * width + field] = 0;
    }
    this.terms[doc] = undefined;
    this.free.push(doc);
    this.count--;
  }

  private post(field: number, doc: number, tokens: readonly string[], terms: Set<string>): void {
    const postings = this.postings[field]!;
    for (const token of tokens) {
      terms.add(token);
      let list = postings.get(token);
      if (!list) postings.set(token, (list = new Map()));
      const seen = list.get(doc) ?? 0;
      if (seen < TERM_CAP) list.set(doc, seen + 1);
    }
  }

  /** Calls `each` with every start of a single word (no phrase pair) that byStart keeps. */
  private startsOf(term: string, each: (start: string) => void): void {
    if (term.includes(' ')) return;
    const longest = Math.min(term.length - 1, LONGEST_WORD_START);
    for (let length = WORD_START_LENGTH; length <= longest; length++) each(term.slice(0, length));
  }

  /** The words held (single words, not pairs) that begin with `start` and are longer than it. */
  wordsStartingWith(start: string): ReadonlySet<string> {
    return this.byStart.get(start) ?? NO_WORDS;
  }

  /** How many documents hold the word, in any field. */
  frequency(term: string): number {
    return this.documentFrequency.get(term) ?? 0;
  }

  /** The documents holding `term` in any of `fields`, or undefined when more than `limit` do (a common word, not worth gathering). */
  holders(term: string, fields: readonly number[], limit: number): Set<number> | undefined {
    const docs = new Set<number>();
    for (const field of fields) {
      for (const doc of this.postings[field]!.get(term)?.keys() ?? []) {
        docs.add(doc);
        if (docs.size > limit) return undefined;
      }
    }
    return docs;
  }

  /** Whether any document holds any word of the group. */
  knows(group: QueryGroup): boolean {
    for (const term of group.keys()) if (this.documentFrequency.has(term)) return true;
    return false;
  }

  /**
   * Adds to `sheet`, per document holding a word of the query, each group's best word's BM25F
   * score, and as coverage the summed weight of the groups it matched. Only the postings of the
   * query's words are read; length norms are worked out for the documents they name, so a change
   * to the index leaves nothing to rebuild. Past 2,000 documents, a synonym held by over an eighth
   * of them is skipped: it would cost a pass over much of the index and tell little.
   */
  score(groups: readonly QueryGroup[], sheet: ScoreSheet): void {
    const size = this.terms.length;
    if (this.pseudo.length < size) {
      this.pseudo = new Float64Array(grown(size));
      this.best = new Float64Array(this.pseudo.length);
      this.matched = new Float64Array(this.pseudo.length);
    }
    const { best, matched } = this;
    const touched: number[] = [];
    for (const group of groups) {
      for (const [term, weight] of group) {
        const frequency = this.documentFrequency.get(term);
        if (!frequency || (weight < 1 && this.count > PRUNE_ABOVE && frequency * 8 > this.count)) continue;
        const idf = Math.log(1 + (this.count - frequency + 0.5) / (frequency + 0.5));
        const { docs, tf } = this.termPostingsOf(term);
        for (let at = 0; at < docs.length; at++) {
          const doc = docs[at]!;
          const termTf = tf[at]!;
          const gain = (weight * idf * termTf * (K1 + 1)) / (termTf + K1);
          if (best[doc] === 0 && matched[doc] === 0) touched.push(doc);
          if (gain > best[doc]!) best[doc] = gain;
          if (weight > matched[doc]!) matched[doc] = weight;
        }
      }
      for (const doc of touched) {
        sheet.add(doc, best[doc]!, matched[doc]!);
        best[doc] = 0;
        matched[doc] = 0;
      }
      touched.length = 0;
    }
  }

  /** Postings held in the cache of terms' scores, for a test of its bound. */
  get cachedPostingCount(): number {
    return this.cachedPostings;
  }

  /** The term's documents and summed normalised counts, from the cache or worked out and kept. */
  private termPostingsOf(term: string): TermPostings {
    const cached = this.termPostings.get(term);
    if (cached) return cached;
    const { pseudo, lengths } = this;
    const width = this.fields.length;
    const termDocs: number[] = [];
    for (let field = 0; field < width; field++) {
      const list = this.postings[field]!.get(term);
      if (!list) continue;
      // A field's norm for a document is weight / (1 - b + b * length / average).
      const { weight, b } = this.fields[field]!;
      const fieldBase = (1 - b) / weight;
      const fieldSlope = b / weight / (this.count > 0 ? this.totalLengths[field]! / this.count || 1 : 1);
      // forEach rather than for…of: no [doc, occurrences] array made per posting.
      list.forEach((occurrences, doc) => {
        if (pseudo[doc] === 0) termDocs.push(doc);
        pseudo[doc]! += occurrences / (fieldBase + fieldSlope * lengths[doc * width + field]!);
      });
    }
    const found: TermPostings = { docs: new Int32Array(termDocs), tf: new Float64Array(termDocs.length) };
    termDocs.forEach((doc, at) => {
      found.tf[at] = pseudo[doc]!;
      pseudo[doc] = 0;
    });
    if (termDocs.length > this.maxCachedPostings) return found;
    if (this.cachedPostings + termDocs.length > this.maxCachedPostings) this.forgetTermPostings();
    this.termPostings.set(term, found);
    this.cachedPostings += termDocs.length;
    return found;
  }

  private forgetTermPostings(): void {
    this.termPostings.clear();
    this.cachedPostings = 0;
  }
}

/**
 * BM25F over documents of weighted fields, through an inverted index that takes documents in and
 * out one at a time: a change of one server re-indexes that server's documents only, and a query
 * costs the postings of its own words.
 *
 * Keyword stuffing gains nothing: a word counts at most TERM_CAP times in a field, each field's
 * count is normalised by that field's length against its average (a description of 500 keywords
 * weighs each of them little), and the per-document sum saturates (k1).
 */
import { spacedLength } from './tokenize.js';

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
const withoutYo = (word: string) => word.replace(/ё/g, 'е');
/**
 * Bytes held at most in the cache of terms' scores (TermPostings: 12 for each of a term's documents,
 * 5 for each of its fields' postings, ENTRY_BYTES for the entry's object and arrays themselves): a
 * stream of queries naming ever more of a large vocabulary empties it rather than grow it. The 1,050
 * tuned queries at 10,000 tools hold 11.4 MB.
 */
const MAX_CACHED_BYTES = 24_000_000;
/**
 * An entry's object and its five typed arrays over one buffer, whatever their length (650 bytes
 * measured on Node 20; 1,130 when each array had a buffer of its own).
 */
const ENTRY_BYTES = 700;
const cachedBytesOf = (docs: number, fieldPostings: number) => ENTRY_BYTES + 12 * docs + 5 * fieldPostings;

/**
 * A term's documents, in the order its fields' postings name them, each with its length-normalised
 * counts summed over the fields: what a query reads of the term. The counts are normalised by the
 * fields' average lengths of `norms`; the field postings they came from are kept beside them, so
 * that a change of other documents (which moves the averages) costs their sum again from arrays,
 * not a walk of the postings' maps.
 */
interface TermPostings {
  docs: Int32Array;
  tf: Float64Array;
  /** The FieldNorms the counts were normalised by. */
  norms: FieldNorms;
  /** The term's postings field after field: documents and their occurrences, `ends[field]` the end of each field's. */
  fieldDocs: Int32Array;
  occurrences: Uint8Array;
  ends: Int32Array;
}

/** A cache entry's arrays, laid out in one buffer (an ArrayBuffer each cost more than a small entry's numbers). */
function termPostingsIn(docs: number, fieldPostings: number, width: number, norms: FieldNorms): TermPostings {
  // Float64 first, then the Int32 arrays, the bytes last: each view starts at a multiple of its element size.
  const buffer = new ArrayBuffer(12 * docs + 4 * fieldPostings + 4 * width + fieldPostings);
  return {
    tf: new Float64Array(buffer, 0, docs),
    docs: new Int32Array(buffer, 8 * docs, docs),
    fieldDocs: new Int32Array(buffer, 12 * docs, fieldPostings),
    ends: new Int32Array(buffer, 12 * docs + 4 * fieldPostings, width),
    occurrences: new Uint8Array(buffer, 12 * docs + 4 * fieldPostings + 4 * width, fieldPostings),
    norms,
  };
}

/** Per field, how a document's count there is normalised: count / (base + slope * length), that is count × weight / (1 - b + b × length / average). */
interface FieldNorms {
  base: Float64Array;
  slope: Float64Array;
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
  /** A word held with ё → spelled with е throughout: the words written with ё that it may stand for. */
  private readonly byPlainSpelling = new Map<string, Set<string>>();
  /** Per document, every distinct term, for taking it out again; undefined for a free number. */
  private readonly terms: Array<string[] | undefined> = [];
  private readonly free: number[] = [];
  /** Field lengths, document by document (`doc * fields + field`). */
  private lengths = new Float64Array(0);
  private readonly totalLengths: Float64Array;
  private count = 0;
  /**
   * Term → what queries read of it, worked out once per term: walking its postings maps field by
   * field cost a query at 10,000 tools more than all the rest of its scoring. A document added or
   * taken out drops the entries of its own terms only (the others' postings stand; their counts are
   * normalised again when the averages moved: termPostingsOf); emptied at MAX_CACHED_BYTES.
   */
  private readonly termPostings = new Map<string, TermPostings>();
  private cachedBytes = 0;
  /** The fields' norms as last worked out, and whether a document came or went since. */
  private norms?: FieldNorms;
  private normsStale = true;
  /** Scratch per document for one query, zero between queries. */
  private pseudo = new Float64Array(0);
  private best = new Float64Array(0);
  private matched = new Float64Array(0);
  /** Scratch for a term's field postings while its cache entry's size is not known yet. */
  private walkedDocs = new Int32Array(0);
  private walkedOccurrences = new Uint8Array(0);

  constructor(
    private readonly fields: readonly FieldSpec[],
    private readonly maxCachedBytes = MAX_CACHED_BYTES,
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
    this.normsStale = true;
    const doc = this.free.pop() ?? this.terms.length;
    const width = this.fields.length;
    if (this.lengths.length < (doc + 1) * width) {
      const lengths = new Float64Array(grown(doc + 1) * width);
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    const terms = new Set<string>();
    fields.forEach((tokens, field) => {
      const length = spacedLength(tokens);
      this.lengths[doc * width + field] = length;
      this.totalLengths[field]! += length;
      this.post(field, doc, tokens, terms);
      this.post(field, doc, extraTerms[field] ?? [], terms);
    });
    for (const term of terms) {
      this.forgetTerm(term);
      const frequency = this.documentFrequency.get(term) ?? 0;
      if (frequency === 0) {
        this.startsOf(term, (start) => {
          const words = this.byStart.get(start);
          if (words) words.add(term);
          else this.byStart.set(start, new Set([term]));
        });
        if (term.includes('ё')) {
          const plain = withoutYo(term);
          const words = this.byPlainSpelling.get(plain);
          if (words) words.add(term);
          else this.byPlainSpelling.set(plain, new Set([term]));
        }
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
    this.normsStale = true;
    for (const term of terms) {
      this.forgetTerm(term);
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
        if (term.includes('ё')) {
          const plain = withoutYo(term);
          const words = this.byPlainSpelling.get(plain)!;
          words.delete(term);
          if (words.size === 0) this.byPlainSpelling.delete(plain);
        }
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

  /** The words held that are written with ё where `plain` has е, and elsewhere as it is. */
  wordsWithYo(plain: string): ReadonlySet<string> {
    return this.byPlainSpelling.get(plain) ?? NO_WORDS;
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

  /** Bytes held in the cache of terms' scores, for a test of its bound. */
  get cachedByteCount(): number {
    return this.cachedBytes;
  }

  /** The term's documents and summed normalised counts, from the cache or worked out and kept. */
  private termPostingsOf(term: string): TermPostings {
    const norms = this.currentNorms();
    const cached = this.termPostings.get(term);
    if (cached) {
      if (cached.norms !== norms) this.normalise(cached, norms);
      return cached;
    }
    const width = this.fields.length;
    let fieldPostings = 0;
    for (let field = 0; field < width; field++) fieldPostings += this.postings[field]!.get(term)?.size ?? 0;
    if (this.walkedDocs.length < fieldPostings) {
      this.walkedDocs = new Int32Array(grown(fieldPostings));
      this.walkedOccurrences = new Uint8Array(this.walkedDocs.length);
    }
    const { pseudo, lengths, walkedDocs, walkedOccurrences } = this;
    const fieldEnds: number[] = [];
    const termDocs: number[] = [];
    let at = 0;
    for (let field = 0; field < width; field++) {
      const base = norms.base[field]!;
      const slope = norms.slope[field]!;
      // forEach rather than for…of: no [doc, occurrences] array made per posting.
      this.postings[field]!.get(term)?.forEach((count, doc) => {
        walkedDocs[at] = doc;
        walkedOccurrences[at++] = count;
        if (pseudo[doc] === 0) termDocs.push(doc);
        pseudo[doc]! += count / (base + slope * lengths[doc * width + field]!);
      });
      fieldEnds.push(at);
    }
    const found = termPostingsIn(termDocs.length, fieldPostings, width, norms);
    found.docs.set(termDocs);
    found.fieldDocs.set(walkedDocs.subarray(0, fieldPostings));
    found.occurrences.set(walkedOccurrences.subarray(0, fieldPostings));
    found.ends.set(fieldEnds);
    termDocs.forEach((doc, of) => {
      found.tf[of] = pseudo[doc]!;
      pseudo[doc] = 0;
    });
    const size = cachedBytesOf(termDocs.length, fieldPostings);
    if (size > this.maxCachedBytes) return found;
    if (this.cachedBytes + size > this.maxCachedBytes) this.forgetTermPostings();
    this.termPostings.set(term, found);
    this.cachedBytes += size;
    return found;
  }

  /** Sums the term's counts over its fields, each normalised by its document's length in the field (pseudo as scratch). */
  private normalise(entry: TermPostings, norms: FieldNorms): void {
    const { pseudo, lengths } = this;
    const { docs, tf, fieldDocs, occurrences, ends } = entry;
    const width = this.fields.length;
    let at = 0;
    for (let field = 0; field < width; field++) {
      const base = norms.base[field]!;
      const slope = norms.slope[field]!;
      for (const end = ends[field]!; at < end; at++) {
        const doc = fieldDocs[at]!;
        pseudo[doc]! += occurrences[at]! / (base + slope * lengths[doc * width + field]!);
      }
    }
    for (let of = 0; of < docs.length; of++) {
      tf[of] = pseudo[docs[of]!]!;
      pseudo[docs[of]!] = 0;
    }
    entry.norms = norms;
  }

  /**
   * The fields' norms for the index as it stands: the same object as long as they are the same
   * numbers, so that the cache's counts stand over a change that leaves every average as it was.
   */
  private currentNorms(): FieldNorms {
    if (this.norms && !this.normsStale) return this.norms;
    this.normsStale = false;
    const width = this.fields.length;
    const base = new Float64Array(width);
    const slope = new Float64Array(width);
    for (let field = 0; field < width; field++) {
      const { weight, b } = this.fields[field]!;
      base[field] = (1 - b) / weight;
      slope[field] = b / weight / (this.count > 0 ? this.totalLengths[field]! / this.count || 1 : 1);
    }
    if (!this.norms?.slope.every((value, field) => value === slope[field])) this.norms = { base, slope };
    return this.norms;
  }

  private forgetTerm(term: string): void {
    const cached = this.termPostings.get(term);
    if (!cached) return;
    this.termPostings.delete(term);
    this.cachedBytes -= cachedBytesOf(cached.docs.length, cached.fieldDocs.length);
  }

  private forgetTermPostings(): void {
    this.termPostings.clear();
    this.cachedBytes = 0;
  }
}

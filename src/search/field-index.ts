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

export interface FieldSpec {
  weight: number;
  /** How much the field's length normalises its counts (0: not at all, 1: fully). */
  b: number;
}

/** A document: its words per field, in the order of the index's field specs. */
export type FieldTokens = ReadonlyArray<readonly string[]>;

/** Query words with their weights; a document gets credit for the group once, for its best word. */
export type QueryGroup = ReadonlyMap<string, number>;

interface StoredDocument {
  lengths: Float64Array;
  /** Every distinct term, for taking the document out again. */
  terms: string[];
}

export class FieldIndex {
  /** Per field: term → (document → occurrences, capped). */
  private readonly postings: Array<Map<string, Map<number, number>>>;
  /** Term → documents holding it in any field. */
  private readonly documentFrequency = new Map<string, number>();
  private readonly documents: Array<StoredDocument | undefined> = [];
  private readonly free: number[] = [];
  private readonly totalLengths: Float64Array;
  private count = 0;
  /** Made on the first query after a change (see fieldNorms). */
  private norms?: Float64Array[];

  constructor(private readonly fields: readonly FieldSpec[]) {
    this.postings = fields.map(() => new Map());
    this.totalLengths = new Float64Array(fields.length);
  }

  get size(): number {
    return this.count;
  }

  /**
   * Adds a document and returns its number. `extraTerms` per field are indexed without counting
   * in the field's length (the word pairs that phrase matching looks up).
   */
  add(fields: FieldTokens, extraTerms: FieldTokens = []): number {
    const doc = this.free.pop() ?? this.documents.length;
    const lengths = new Float64Array(this.fields.length);
    const terms = new Set<string>();
    fields.forEach((tokens, field) => {
      lengths[field] = tokens.length;
      this.totalLengths[field]! += tokens.length;
      this.post(field, doc, tokens, terms);
      this.post(field, doc, extraTerms[field] ?? [], terms);
    });
    for (const term of terms) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
    this.documents[doc] = { lengths, terms: [...terms] };
    this.count++;
    this.norms = undefined;
    return doc;
  }

  remove(doc: number): void {
    const stored = this.documents[doc];
    if (!stored) return;
    for (const term of stored.terms) {
      for (const field of this.postings) {
        const list = field.get(term);
        if (list?.delete(doc) && list.size === 0) field.delete(term);
      }
      const frequency = this.documentFrequency.get(term)! - 1;
      if (frequency === 0) this.documentFrequency.delete(term);
      else this.documentFrequency.set(term, frequency);
    }
    stored.lengths.forEach((length, field) => {
      this.totalLengths[field]! -= length;
    });
    this.documents[doc] = undefined;
    this.free.push(doc);
    this.count--;
    this.norms = undefined;
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

  /** Whether any document holds any word of the group. */
  knows(group: QueryGroup): boolean {
    for (const term of group.keys()) if (this.documentFrequency.has(term)) return true;
    return false;
  }

  /**
   * Scores every document holding a word of the query. Each group adds its best word's BM25F
   * score; `coverage` gets, per document, the summed weight of the groups it matched. Past 2,000
   * documents, a synonym held by over an eighth of them is skipped: it would cost a pass over much of the
   * index and tell little.
   */
  score(groups: readonly QueryGroup[], scores: Map<number, number>, coverage?: Map<number, number>): void {
    const norms = this.fieldNorms();
    const size = this.documents.length;
    const pseudo = new Float64Array(size);
    const best = new Float64Array(size);
    const matched = new Float64Array(size);
    for (const group of groups) {
      const touched: number[] = [];
      for (const [term, weight] of group) {
        const frequency = this.documentFrequency.get(term);
        if (!frequency || (weight < 1 && this.count > PRUNE_ABOVE && frequency * 8 > this.count)) continue;
        const idf = Math.log(1 + (this.count - frequency + 0.5) / (frequency + 0.5));
        const termDocs: number[] = [];
        for (let field = 0; field < this.fields.length; field++) {
          const list = this.postings[field]!.get(term);
          if (!list) continue;
          const fieldNorms = norms[field]!;
          for (const [doc, occurrences] of list) {
            if (pseudo[doc] === 0) termDocs.push(doc);
            pseudo[doc]! += occurrences * fieldNorms[doc]!;
          }
        }
        for (const doc of termDocs) {
          const tf = pseudo[doc]!;
          pseudo[doc] = 0;
          const gain = (weight * idf * tf * (K1 + 1)) / (tf + K1);
          if (best[doc] === 0 && matched[doc] === 0) touched.push(doc);
          if (gain > best[doc]!) best[doc] = gain;
          if (weight > matched[doc]!) matched[doc] = weight;
        }
      }
      for (const doc of touched) {
        scores.set(doc, (scores.get(doc) ?? 0) + best[doc]!);
        if (coverage) coverage.set(doc, (coverage.get(doc) ?? 0) + matched[doc]!);
        best[doc] = 0;
        matched[doc] = 0;
      }
    }
  }

  /** Per field and document: the field's weight over its length normalisation, made again after a change. */
  private fieldNorms(): Float64Array[] {
    if (this.norms) return this.norms;
    const averages = this.fields.map((_, field) => (this.count > 0 ? this.totalLengths[field]! / this.count || 1 : 1));
    this.norms = this.fields.map(({ weight, b }, field) => {
      const norms = new Float64Array(this.documents.length);
      this.documents.forEach((stored, doc) => {
        if (stored) norms[doc] = weight / (1 - b + (b * stored.lengths[field]!) / averages[field]!);
      });
      return norms;
    });
    return this.norms;
  }
}

/**
 * BM25F over documents with weighted fields, through an inverted index: a query costs the
 * postings of its own words, not a pass over every document.
 */
import { synonymsOf } from './synonyms.js';
import { textTokens } from './tokenize.js';

const K1 = 1.2;
const B = 0.75;
/** A query word's synonyms count this much of the word itself. */
const SYNONYM_WEIGHT = 0.35;

/** A document as fields of words, each field with its weight (a word in a name counts more than one in a description). */
export type WeightedFields = ReadonlyArray<{ tokens: readonly string[]; weight: number }>;

interface Posting {
  doc: number;
  frequency: number;
}

export interface Scored {
  doc: number;
  score: number;
}

export class Bm25Index {
  private readonly postings = new Map<string, Posting[]>();
  private readonly lengths: Float64Array;
  private readonly averageLength: number;

  constructor(documents: readonly WeightedFields[]) {
    this.lengths = new Float64Array(documents.length);
    let total = 0;
    documents.forEach((fields, doc) => {
      const frequencies = new Map<string, number>();
      let length = 0;
      for (const { tokens, weight } of fields) {
        for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + weight);
        length += tokens.length * weight;
      }
      this.lengths[doc] = length;
      total += length;
      for (const [token, frequency] of frequencies) {
        const list = this.postings.get(token);
        if (list) list.push({ doc, frequency });
        else this.postings.set(token, [{ doc, frequency }]);
      }
    });
    this.averageLength = documents.length > 0 ? total / documents.length || 1 : 1;
  }

  get size(): number {
    return this.lengths.length;
  }

  /** Documents that share at least one word with the query (or a synonym of one), best first; `accept` filters documents. */
  search(query: string, limit: number, accept: (doc: number) => boolean = () => true): Scored[] {
    const scores = new Map<number, number>();
    for (const [token, weight] of queryWeights(query)) {
      const list = this.postings.get(token);
      if (!list) continue;
      const idf = Math.log(1 + (this.size - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, frequency } of list) {
        const norm = K1 * (1 - B + (B * this.lengths[doc]!) / this.averageLength);
        const gain = (weight * idf * frequency * (K1 + 1)) / (frequency + norm);
        scores.set(doc, (scores.get(doc) ?? 0) + gain);
      }
    }
    return topScored(scores, limit, accept);
  }
}

/** Each query word at weight 1, its synonyms at a lower weight (a word both typed and a synonym keeps weight 1). */
function queryWeights(query: string): Map<string, number> {
  const weights = new Map<string, number>();
  const typed = textTokens(query);
  for (const token of typed) weights.set(token, 1);
  for (const token of typed) {
    for (const synonym of synonymsOf(token)) {
      if ((weights.get(synonym) ?? 0) < SYNONYM_WEIGHT) weights.set(synonym, SYNONYM_WEIGHT);
    }
  }
  return weights;
}

function topScored(scores: Map<number, number>, limit: number, accept: (doc: number) => boolean): Scored[] {
  const found: Scored[] = [];
  for (const [doc, score] of scores) if (accept(doc)) found.push({ doc, score });
  // Ties in document order, so results are stable.
  found.sort((a, b) => b.score - a.score || a.doc - b.doc);
  return found.slice(0, limit);
}

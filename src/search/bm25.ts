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

  /**
   * Documents that share at least one word with the query (or a synonym of one), best first;
   * `accept` filters documents. A document that matches more of the query's words gains over one
   * that matches one word many times (the coordination factor of classic Lucene scoring).
   */
  search(query: string, limit: number, accept: (doc: number) => boolean = () => true): Scored[] {
    const scores = new Map<number, number>();
    const coverage = new Map<number, number>();
    const groups = queryGroups(query);
    for (const group of groups) {
      const matched = new Map<number, number>();
      for (const [token, weight] of group) {
        const list = this.postings.get(token);
        if (!list) continue;
        const idf = Math.log(1 + (this.size - list.length + 0.5) / (list.length + 0.5));
        for (const { doc, frequency } of list) {
          const norm = K1 * (1 - B + (B * this.lengths[doc]!) / this.averageLength);
          const gain = (weight * idf * frequency * (K1 + 1)) / (frequency + norm);
          scores.set(doc, (scores.get(doc) ?? 0) + gain);
          matched.set(doc, Math.max(matched.get(doc) ?? 0, weight));
        }
      }
      for (const [doc, weight] of matched) coverage.set(doc, (coverage.get(doc) ?? 0) + weight);
    }
    for (const [doc, score] of scores) scores.set(doc, score * Math.sqrt((coverage.get(doc) ?? 0) / groups.length));
    return topScored(scores, limit, accept);
  }
}

/** One group per query word: the word at weight 1, its synonyms at a lower weight. */
function queryGroups(query: string): Array<Map<string, number>> {
  const typed = [...new Set(textTokens(query))];
  return typed.map((token) => {
    const group = new Map<string, number>([[token, 1]]);
    for (const synonym of synonymsOf(token)) if (!group.has(synonym)) group.set(synonym, SYNONYM_WEIGHT);
    return group;
  });
}

function topScored(scores: Map<number, number>, limit: number, accept: (doc: number) => boolean): Scored[] {
  const found: Scored[] = [];
  for (const [doc, score] of scores) if (accept(doc)) found.push({ doc, score });
  // Ties in document order, so results are stable.
  found.sort((a, b) => b.score - a.score || a.doc - b.doc);
  return found.slice(0, limit);
}

/**
 * Words that are used alike in the user's own catalogue: two words whose neighbours in the tools'
 * texts (a few words either side, within one name, title, description or parameter description, or
 * a server's purpose) are much the same, by the cosine of their positive pointwise mutual
 * information with those neighbours (distributional similarity, read off the tools indexed and no
 * query). Counts are kept per server, so a server change adds and takes away its own texts only;
 * a word's similar words are worked out when a query asks, and kept until the next change.
 */
import { isUnspaced } from './tokenize.js';

/** Words either side of a word that count as its context. */
const CONTEXT_WINDOW = 4;
/** Below this cosine two words are not used alike enough to stand for each other. */
const MIN_COSINE = 0.2;
const MAX_CACHED_WORDS = 10_000;

export class WordContexts {
  /** Word → context word → times seen within CONTEXT_WINDOW of each other (symmetric). */
  private readonly counts = new Map<string, Map<string, number>>();
  /** Word → its contexts counted, all told. */
  private readonly totals = new Map<string, number>();
  private total = 0;
  /** Owner (a server's purpose, a tool) → its texts, to take them out again. */
  private readonly textsOf = new Map<string | number, ReadonlyArray<readonly string[]>>();
  /** Word → the length of its PPMI vector, worked out once between changes. */
  private readonly norms = new Map<string, number>();
  private readonly similar = new Map<string, ReadonlyArray<readonly [string, number]>>();

  /** Replaces the texts counted for `owner`. */
  set(owner: string | number, texts: ReadonlyArray<readonly string[]>): void {
    this.remove(owner);
    this.textsOf.set(owner, texts);
    this.count(texts, 1);
  }

  remove(owner: string | number): void {
    const texts = this.textsOf.get(owner);
    if (!texts) return;
    this.textsOf.delete(owner);
    this.count(texts, -1);
  }

  /**
   * The `limit` words used most like `word`, each with its cosine (MIN_COSINE or more), among
   * those `eligible` accepts.
   */
  mostLike(word: string, limit: number, eligible: (other: string) => boolean): ReadonlyArray<readonly [string, number]> {
    let found = this.similar.get(word);
    if (found) return found;
    found = [];
    const own = this.counts.get(word);
    if (own) {
      const dots = new Map<string, number>();
      for (const [context, together] of own) {
        const weight = this.ppmi(word, context, together);
        if (weight <= 0) continue;
        // Symmetric counts: the words seen near `context` are those that have it as a context.
        for (const [other, count] of this.counts.get(context)!) {
          if (other === word) continue;
          const theirs = this.ppmi(other, context, count);
          if (theirs > 0) dots.set(other, (dots.get(other) ?? 0) + weight * theirs);
        }
      }
      const norm = this.norm(word);
      const cosines: Array<[string, number]> = [];
      for (const [other, dot] of dots) {
        const cosine = dot / (norm * this.norm(other));
        if (cosine >= MIN_COSINE && eligible(other)) cosines.push([other, cosine]);
      }
      found = cosines.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
    }
    if (this.similar.size >= MAX_CACHED_WORDS) this.similar.clear();
    this.similar.set(word, found);
    return found;
  }

  private ppmi(word: string, context: string, together: number): number {
    return Math.max(0, Math.log((together * this.total) / (this.totals.get(word)! * this.totals.get(context)!)));
  }

  private norm(word: string): number {
    let norm = this.norms.get(word);
    if (norm === undefined) {
      let squares = 0;
      for (const [context, together] of this.counts.get(word)!) squares += this.ppmi(word, context, together) ** 2;
      norm = Math.sqrt(squares);
      if (this.norms.size >= MAX_CACHED_WORDS) this.norms.clear();
      this.norms.set(word, norm);
    }
    return norm;
  }

  private count(texts: ReadonlyArray<readonly string[]>, sign: 1 | -1): void {
    this.norms.clear();
    this.similar.clear();
    for (const text of texts) {
      // Pairs of CJK characters and emoji are no words with neighbours: counted, they would part the spaced words around them.
      const tokens = text.some(isUnspaced) ? text.filter((word) => !isUnspaced(word)) : text;
      for (let at = 0; at < tokens.length; at++) {
        const word = tokens[at]!;
        let row = this.counts.get(word);
        if (!row) this.counts.set(word, (row = new Map()));
        let seen = 0;
        const last = Math.min(tokens.length - 1, at + CONTEXT_WINDOW);
        for (let other = Math.max(0, at - CONTEXT_WINDOW); other <= last; other++) {
          const context = tokens[other]!;
          if (context === word) continue;
          const together = (row.get(context) ?? 0) + sign;
          if (together === 0) row.delete(context);
          else row.set(context, together);
          seen++;
        }
        if (row.size === 0) this.counts.delete(word);
        const total = (this.totals.get(word) ?? 0) + sign * seen;
        if (total === 0) this.totals.delete(word);
        else this.totals.set(word, total);
        this.total += sign * seen;
      }
    }
  }
}

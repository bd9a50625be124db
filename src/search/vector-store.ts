/**
 * Embedding vectors of tool texts, kept by a hash of the model name and the text, and stored in a
 * file beside the manifest index so a restart embeds only what changed. The embedding function is
 * the application's (any `(texts) => vectors`, e.g. the AI SDK's `embedMany` with a model it
 * already uses): nothing is downloaded or bundled here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export type EmbedFunction = (texts: string[]) => Promise<number[][]>;

export interface SemanticSearchOptions {
  embed: EmbedFunction;
  /** Names the embedding model: vectors stored under another name are not reused. Default "default". */
  model?: string;
}

const FORMAT_VERSION = 1;
/** Texts sent to `embed` in one call. */
const BATCH = 64;
/** Vectors kept at most (in memory and in the file): the oldest go first. */
export const MAX_VECTORS = 50_000;
/** Vectors longer than this are refused: they would make the file and every query costly. */
const MAX_DIMENSIONS = 4_096;

function unit(vector: readonly number[]): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float32Array.from(vector, (value) => value * scale);
}

export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let sum = 0;
  for (let at = 0; at < a.length; at++) sum += a[at]! * b[at]!;
  return sum;
}

export class VectorStore {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly model: string;

  constructor(
    private readonly options: SemanticSearchOptions,
    /** The file the vectors are kept in; none: memory only. */
    private readonly file?: string,
  ) {
    this.model = options.model ?? 'default';
    if (file) this.read(file);
  }

  private key(text: string): string {
    return createHash('sha256').update(this.model).update('\0').update(text).digest('base64url').slice(0, 24);
  }

  get(text: string): Float32Array | undefined {
    return this.vectors.get(this.key(text));
  }

  /** Embeds the texts that have no vector yet, in batches, then saves the file. */
  async ensure(texts: readonly string[]): Promise<void> {
    const missing = [...new Set(texts)].filter((text) => !this.vectors.has(this.key(text)));
    for (let start = 0; start < missing.length; start += BATCH) {
      const batch = missing.slice(start, start + BATCH);
      const embedded = await this.options.embed(batch);
      if (!Array.isArray(embedded) || embedded.length !== batch.length) {
        throw new Error(`search.embed returned ${Array.isArray(embedded) ? embedded.length : 'no'} vectors for ${batch.length} texts`);
      }
      batch.forEach((text, at) => this.put(this.key(text), embedded[at]!));
    }
    if (missing.length > 0 && this.file) this.write(this.file);
  }

  /** The query's vector; not stored. */
  async embedQuery(query: string): Promise<Float32Array> {
    const [vector] = await this.options.embed([query]);
    if (!vector || vector.length === 0 || vector.length > MAX_DIMENSIONS) throw new Error('search.embed returned no usable vector for the query');
    return unit(vector);
  }

  private put(key: string, vector: readonly number[]): void {
    if (!Array.isArray(vector) || vector.length === 0 || vector.length > MAX_DIMENSIONS) return;
    this.vectors.delete(key);
    this.vectors.set(key, unit(vector));
    if (this.vectors.size > MAX_VECTORS) this.vectors.delete(this.vectors.keys().next().value!);
  }

  private read(file: string): void {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown; model?: unknown; vectors?: Record<string, unknown> };
      if (parsed.version !== FORMAT_VERSION || parsed.model !== this.model || typeof parsed.vectors !== 'object' || parsed.vectors === null) return;
      for (const [key, encoded] of Object.entries(parsed.vectors)) {
        if (typeof encoded !== 'string') continue;
        const bytes = Buffer.from(encoded, 'base64');
        if (bytes.length % 4 !== 0) continue;
        this.vectors.set(key, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
        if (this.vectors.size >= MAX_VECTORS) break;
      }
    } catch {
      // No file yet, or not one of ours: start empty, it is only a cache.
    }
  }

  private write(file: string): void {
    const vectors: Record<string, string> = {};
    for (const [key, vector] of this.vectors) vectors[key] = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: FORMAT_VERSION, model: this.model, vectors }), { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
  }
}

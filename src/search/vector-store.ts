/**
 * Embedding vectors of tool texts, kept by a hash of the model name and the text, and stored in a
 * file beside the manifest index so a restart embeds only what changed. The file is JSON lines, a
 * header then one `[key, base64]` per vector, and new vectors are appended: a change of one server
 * writes that server's vectors, not the whole file (at 10,000 tools and 512 dimensions, rewriting
 * ~27 MB made the first search after a change take about a second). The embedding function is
 * the application's (any `(texts) => vectors`, e.g. the AI SDK's `embedMany` with a model it
 * already uses): nothing is downloaded or bundled here.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readRegularFileSync } from '../config/read-config-file.js';
import { removeLeftStagedCopies, stagedCopyPath } from '../config/staged-copies.js';

export type EmbedFunction = (texts: string[]) => Promise<number[][]>;

export interface SemanticSearchOptions {
  embed: EmbedFunction;
  /** Names the embedding model: vectors stored under another name are not reused. Default "default". */
  model?: string;
  /**
   * How much the ranking by vectors weighs against the ranking by words (which weighs 1) when the
   * two are fused: each tool gains `1 / (60 + rank)` from the words' list and
   * `vectorWeight / (60 + rank)` from the vectors'. 0: words alone (nothing is embedded); 1: equal
   * weight; above 1: the vectors lead. A finite number ≥ 0. Default 0.03, what a small model
   * (Universal Sentence Encoder lite) earned on the bench, where equal weight made recall@1 worse:
   * the vectors move a tool past its neighbour in the words' order, and tools only they find come
   * after the words' matches. A stronger model may deserve more: measure on your own queries.
   */
  vectorWeight?: number;
}

const FORMAT_VERSION = 2;
/** Texts sent to `embed` in one call. */
const BATCH = 64;
/** Vectors kept at most (in memory and in the file): the oldest go first. */
export const MAX_VECTORS = 50_000;
/** Vectors longer than this are refused: they would make the file and every query costly. */
const MAX_DIMENSIONS = 4_096;
/** A bigger file is not read (V8 holds no longer string): it is written anew. */
const MAX_FILE_BYTES = 512 * 1024 * 1024;

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
  /** Vector lines in the file, when it is ours to append to (its header is this format and model). */
  private fileLines?: number;

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
    if (missing.length > 0 && this.file) this.save(this.file, missing.map((text) => this.key(text)));
  }

  /** The query's vector; not stored. */
  async embedQuery(query: string): Promise<Float32Array> {
    const [vector] = await this.options.embed([query]);
    if (!vector || vector.length === 0 || vector.length > MAX_DIMENSIONS) throw new Error('search.embed returned no usable vector for the query');
    return unit(vector);
  }

  private put(key: string, vector: readonly number[]): void {
    if (!Array.isArray(vector) || vector.length === 0 || vector.length > MAX_DIMENSIONS) return;
    this.keep(key, unit(vector));
  }

  /** The newest last: past MAX_VECTORS the oldest goes. */
  private keep(key: string, vector: Float32Array): void {
    this.vectors.delete(key);
    this.vectors.set(key, vector);
    if (this.vectors.size > MAX_VECTORS) this.vectors.delete(this.vectors.keys().next().value!);
  }

  private read(file: string): void {
    // Read as the index is: a FIFO planted here would block the process for good.
    const read = readRegularFileSync(file, MAX_FILE_BYTES);
    if (read.kind !== 'bytes') return; // No file yet, or none of ours: start empty, it is only a cache.
    let text: string;
    try {
      text = read.bytes.toString('utf8');
    } catch {
      return;
    }
    const lines = text.split('\n');
    try {
      const header = JSON.parse(lines[0]!) as { version?: unknown; model?: unknown };
      if (header.version !== FORMAT_VERSION || header.model !== this.model) return;
    } catch {
      return; // Not one of ours (or the older single-object format): written anew on the next save.
    }
    let count = 0;
    for (const line of lines.slice(1)) {
      if (line === '') continue;
      count++;
      try {
        const [key, encoded] = JSON.parse(line) as [unknown, unknown];
        if (typeof key !== 'string' || typeof encoded !== 'string') continue;
        const bytes = Buffer.from(encoded, 'base64');
        if (bytes.length === 0 || bytes.length % 4 !== 0) continue;
        this.keep(key, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
      } catch {
        // A line cut short (a process stopped mid-write): only that vector is lost.
      }
    }
    // Appending after a line cut short would spoil the next line too: the next save writes the file anew.
    this.fileLines = text.endsWith('\n') ? count : undefined;
  }

  /** Appends the new vectors; writes the file anew when it is not ours yet or holds over twice the vectors kept. */
  private save(file: string, added: string[]): void {
    const line = (key: string) => {
      const vector = this.vectors.get(key);
      return vector ? `${JSON.stringify([key, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')])}\n` : '';
    };
    if (this.fileLines !== undefined && this.fileLines + added.length <= 2 * this.vectors.size + BATCH) {
      const appended = added.map(line).filter(Boolean);
      appendFileSync(file, appended.join(''), { mode: 0o600 });
      this.fileLines += appended.length;
      return;
    }
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    removeLeftStagedCopies(file);
    const temporary = stagedCopyPath(file);
    const header = `${JSON.stringify({ version: FORMAT_VERSION, model: this.model })}\n`;
    writeFileSync(temporary, header + [...this.vectors.keys()].map(line).join(''), { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
    this.fileLines = this.vectors.size;
  }
}

/**
 * The stdio transport's line splitting (src/transports/line-buffer.ts): lines within a chunk,
 * across chunks, a character cut between chunks, carriage returns, and the size limit. Every way
 * of cutting the same bytes into chunks gives the same lines.
 */
import { describe, expect, it } from 'vitest';
import { LineBuffer } from '../src/transports/line-buffer.js';

function linesOf(chunks: readonly Buffer[], maxBytes = 1024): string[] {
  const buffer = new LineBuffer(maxBytes);
  const lines: string[] = [];
  for (const chunk of chunks) {
    buffer.append(chunk);
    for (let line = buffer.nextLine(); line !== null; line = buffer.nextLine()) lines.push(line);
  }
  return lines;
}

/** `bytes` cut at each of `cuts` (byte offsets). */
function cut(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const edges = [0, ...cuts, bytes.length];
  return edges.slice(1).map((end, index) => bytes.subarray(edges[index], end));
}

const TEXT = '{"a":1}\n{"b":"é€😀"}\r\n\r\n\nlast line\nunfinished';
const LINES = ['{"a":1}', '{"b":"é€😀"}', '', '', 'last line'];

describe('LineBuffer', () => {
  it('gives the same lines however the bytes are cut into chunks: one, each byte, every cut in two and three', () => {
    const bytes = Buffer.from(TEXT, 'utf8');
    expect(linesOf([bytes])).toEqual(LINES);
    expect(linesOf(cut(bytes, Array.from({ length: bytes.length - 1 }, (_, index) => index + 1)))).toEqual(LINES);
    for (let first = 1; first < bytes.length; first++) {
      expect(linesOf(cut(bytes, [first]))).toEqual(LINES);
      for (let second = first + 1; second < bytes.length; second += 3) expect(linesOf(cut(bytes, [first, second]))).toEqual(LINES);
    }
  });

  it('keeps the unfinished line for the chunk that ends it, and drops only one carriage return', () => {
    const buffer = new LineBuffer(1024);
    buffer.append(Buffer.from('one\ntw'));
    expect(buffer.nextLine()).toBe('one');
    expect(buffer.nextLine()).toBeNull();
    buffer.append(Buffer.from('o\r'));
    expect(buffer.nextLine()).toBeNull();
    buffer.append(Buffer.from('\nthree\r\r\n'));
    expect(buffer.nextLine()).toBe('two');
    expect(buffer.nextLine()).toBe('three\r');
    expect(buffer.nextLine()).toBeNull();
  });

  it('counts only what is still held against the limit, and refuses a chunk past it', () => {
    const buffer = new LineBuffer(10);
    buffer.append(Buffer.from('12345\n789'));
    expect(buffer.nextLine()).toBe('12345');
    // 3 bytes held: 7 more fit, 8 do not.
    buffer.append(Buffer.from('abcdefg'));
    expect(() => buffer.append(Buffer.from('h'))).toThrow('ReadBuffer exceeded maximum size of 10 bytes');
    // The overflow empties the buffer.
    buffer.append(Buffer.from('fresh\n'));
    expect(buffer.nextLine()).toBe('fresh');
  });
});

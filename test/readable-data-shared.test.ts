/**
 * A definition, connect options or tool arguments whose objects are shared (each level of a graph
 * naming the next twice): the readability check read each object once per way to it, 2^levels
 * reads (22 levels took 2.8 s, 40 would never end). It now reads each shared object once, and
 * still finds cycles, throwing getters and nesting past the depth limit. Work is counted in getter
 * reads, not timed: the counting getter throws past a bound the old walk passes at once.
 */
import { describe, expect, it } from 'vitest';
import { cyclicPart, unreadablePart } from '../src/readable-data.js';
import { MAX_ARGUMENT_DEPTH } from '../machines/errors.js';

/** `levels` objects, each naming the next twice; the last one's getter counts its reads and throws past `bound`. */
function ladder(levels: number, bound: number): { top: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  let next: Record<string, unknown> = {
    get leaf() {
      reads += 1;
      if (reads > bound) throw new Error(`read ${reads} times`);
      return 'leaf';
    },
  };
  for (let level = 1; level < levels; level++) next = { left: next, right: next };
  return { top: next, reads: () => reads };
}

describe('data whose objects are shared', () => {
  it('is read once per shared object, 40 levels deep', () => {
    const { top, reads } = ladder(40, 100);
    expect(unreadablePart({ env: top }, 'env')).toBeUndefined();
    expect(reads()).toBe(1);
    expect(cyclicPart(ladder(40, 100).top)).toBeUndefined();
  });

  it('still finds a cycle, a getter that throws and nesting past the limit below shared objects', () => {
    const shared: Record<string, unknown> = { name: 'x' };
    const cyclic: Record<string, unknown> = { a: shared, b: shared };
    shared.back = cyclic;
    expect(cyclicPart(cyclic)).toBe('"back" contains itself');
    const throwing = { a: { ok: 1 }, b: { get bad(): never { throw new Error('no') } } };
    expect(unreadablePart({ options: throwing }, 'options')).toBe('reading "bad" threw "no"');
    // The same object shallow first, then deeper than the limit allows: read again there.
    let deep: Record<string, unknown> = {};
    const bottom = { leaf: {} };
    deep = bottom;
    for (let level = 0; level < MAX_ARGUMENT_DEPTH - 2; level++) deep = { inner: deep };
    expect(unreadablePart({ options: { first: bottom, second: deep } }, 'options')).toMatch(/is nested deeper than 256 levels$/);
  });
});

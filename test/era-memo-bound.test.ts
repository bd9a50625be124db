/**
 * The eras a manager remembers stay bounded over a long life: a config that keeps adding and
 * removing servers under new names must not grow the memory by one entry per name ever connected.
 */
import { describe, expect, it } from 'vitest';
import { EraMemo, MAX_REMEMBERED_SERVERS } from '../src/connection/era-memo.js';

const config = { command: 'node', args: ['server.mjs'] };
const legacy = { kind: 'legacy' } as const;

describe('remembered eras over a long life', () => {
  it('past the limit, the server connected longest ago is forgotten and the latest ones are kept', () => {
    const eras = new EraMemo();
    for (let index = 0; index <= MAX_REMEMBERED_SERVERS; index++) eras.remember(`server-${index}`, config, legacy);

    expect(eras.learnt('server-0', config)).toBeUndefined();
    expect(eras.learnt('server-1', config)).toEqual(legacy);
    expect(eras.learnt(`server-${MAX_REMEMBERED_SERVERS}`, config)).toEqual(legacy);
  });

  it('a server connected again counts as recent: it outlives one connected once, later', () => {
    const eras = new EraMemo();
    eras.remember('busy', config, legacy);
    eras.remember('quiet', config, legacy);
    eras.remember('busy', config, legacy);
    for (let index = 0; index < MAX_REMEMBERED_SERVERS - 1; index++) eras.remember(`server-${index}`, config, legacy);

    expect(eras.learnt('quiet', config)).toBeUndefined();
    expect(eras.learnt('busy', config)).toEqual(legacy);
  });
});

/**
 * `serve` ends when its host connection ends, however it ends: the host closing stdin, or the
 * SDK's stdio transport closing itself after a message over 10 MiB (it then stops reading
 * stdin, so serve must notice the close). It logs why on stderr, disconnects every server it
 * started and exits, non-zero when the connection broke. Real processes: the CLI and the
 * fixture server.
 */
import { describe, expect, it } from 'vitest';
import { descendantsAfter } from './support/chaos-helpers.js';
import { loadFixture, OVERSIZED_REQUEST, startServe } from './support/serve-host.js';

describe('mcp-statechart serve', () => {
  it('fed an 11 MB request, exits non-zero within 5 s with the reason on stderr and no child left', async () => {
    const serve = startServe();
    try {
      await loadFixture(serve);
      const sent = Date.now();
      serve.write(OVERSIZED_REQUEST);
      const { code, at } = await serve.exited;

      expect(code).toBe(1);
      expect(at - sent).toBeLessThan(5_000);
      expect(serve.stderr()).toMatch(/serve stops: the host sent a message over 10 MiB, so the stdio transport closed/);
      expect(await descendantsAfter()).toEqual([]);
    } finally {
      serve.cleanUp();
    }
  }, 30_000);

  it('ends within 5 s when the host closes stdin, with a server connected, exit code 0 and no child left', async () => {
    const serve = startServe();
    try {
      await loadFixture(serve);
      const closed = Date.now();
      serve.end();
      const { code, at } = await serve.exited;

      expect(code).toBe(0);
      expect(at - closed).toBeLessThan(5_000);
      expect(serve.stderr()).not.toMatch(/serve stops/);
      expect(await descendantsAfter()).toEqual([]);
    } finally {
      serve.cleanUp();
    }
  }, 30_000);
});

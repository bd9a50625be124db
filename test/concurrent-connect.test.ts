import { describe, expect, it } from 'vitest';
import { defaultTransportFactory, McpConnectionManager, silentLogger } from '../src/index.js';
import { descendantsOfThisProcess, stdioFixture } from './support/fixtures.js';

describe('concurrent connects', () => {
  it('shares one attempt: 100 concurrent connect() calls create exactly one transport', async () => {
    let transports = 0;
    const manager = new McpConnectionManager({
      logger: silentLogger,
      transportFactory: (spec) => {
        transports++;
        return defaultTransportFactory(spec);
      },
    });
    const config = stdioFixture();
    const manifests = await Promise.all(Array.from({ length: 100 }, () => manager.connect('shared', config)));
    expect(transports).toBe(1);
    expect(new Set(manifests.map((manifest) => manifest.tools.length))).toEqual(new Set([10]));
    await manager.dispose();
    expect(descendantsOfThisProcess()).toEqual([]);
  });

  it('answers every waiter with the same error when the shared attempt fails', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => manager.connect('missing', { command: 'no-such-command-for-mcp' })),
    );
    expect(results.every((result) => result.status === 'rejected')).toBe(true);
    expect(new Set(results.map((result) => (result as PromiseRejectedResult).reason))).toHaveProperty('size', 1);
    await manager.dispose();
  });
});

/**
 * A server that logs in a tight loop cannot take the process from its neighbours: at most
 * MAX_LOG_MESSAGES_PER_SECOND of its log messages a second are passed on (to the `logging`
 * handler, `mcp.log`, serve's host), the rest are dropped before they are parsed, and a warning
 * each second says how many. Real processes: the hostile fixture server flooding for ever, the
 * fixture server beside it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_FLOOD_LOGGER, MAX_LOG_MESSAGES_PER_SECOND } from '../src/connection/log-flood-limit.js';
import { McpConnectionManager, silentLogger, type McpLogMessage } from '../src/index.js';
import { stdioFixture } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

const FLOOD_SECONDS = 3;

describe('a server flooding log messages beside a healthy one', () => {
  it(`passes on at most ${MAX_LOG_MESSAGES_PER_SECOND} a second, counts the rest in a warning, and its neighbour still answers`, async () => {
    const handled: McpLogMessage[] = [];
    const emitted: McpLogMessage[] = [];
    manager = new McpConnectionManager({ logger: silentLogger, defaults: { idleTimeoutMs: 0 }, handlers: { logging: (message) => handled.push(message) } });
    manager.on('mcp.log', (message) => emitted.push(message));
    await manager.connect('fixture', stdioFixture());
    await manager.connect('hostile', hostileServer());
    const heapBefore = process.memoryUsage().heapUsed;

    const started = Date.now();
    expect(await manager.callTool('hostile', 'flood', { kind: 'log', count: 'forever' })).toMatchObject({ content: [{ text: 'flooding' }] });
    let answered = 0;
    while (Date.now() - started < FLOOD_SECONDS * 1000) {
      const echo = await manager.callTool('fixture', 'echo', { text: 'still here' });
      expect(echo).toMatchObject({ content: [{ text: 'still here' }] });
      answered++;
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    await expect.poll(() => emitted.filter((message) => message.logger === LOG_FLOOD_LOGGER).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const heapGrownMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;

    expect(answered).toBeGreaterThan(0);
    const fromServer = emitted.filter((message) => message.logger === 'hostile');
    // One window more than the seconds counted: the first and the last are partial.
    expect(fromServer.length).toBeLessThanOrEqual(MAX_LOG_MESSAGES_PER_SECOND * (Math.ceil(elapsedSeconds) + 2));
    expect(fromServer.map((message) => message.data).slice(0, 3)).toEqual(['log 1', 'log 2', 'log 3']);
    const warning = emitted.find((message) => message.logger === LOG_FLOOD_LOGGER);
    expect(warning).toMatchObject({
      server: 'hostile',
      level: 'warning',
      data: expect.stringMatching(new RegExp(`^dropped \\d+ log messages from this server in the last second: at most ${MAX_LOG_MESSAGES_PER_SECOND} a second are passed on$`)),
    });
    expect(Number(/^dropped (\d+)/.exec(String(warning?.data))?.[1])).toBeGreaterThan(0);
    // The handler hears what mcp.log does, warnings included.
    expect(handled.map((message) => message.data)).toEqual(expect.arrayContaining([warning?.data]));
    expect(heapGrownMb).toBeLessThan(100);
  }, 60_000);
});

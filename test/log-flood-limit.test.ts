/**
 * A server that logs in a tight loop cannot take the process from its neighbours: at most
 * MAX_LOG_MESSAGES_PER_SECOND of its log messages a second are passed on (to the `logging`
 * handler, `mcp.log`, serve's host), from its first line on (during `initialize` too), the rest
 * are dropped (over stdio before they are parsed), and a warning each second says how many. Only
 * lines that are surely log messages are dropped unread: never a request or an answer. Real
 * processes: the hostile fixture server flooding for ever or at its start, the fixture server
 * beside it, a script writing lines.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { limitLogFlood, MAX_LOG_MESSAGES_PER_SECOND } from '../src/connection/log-flood-limit.js';
import { CLIENT_LOGGER } from '../src/connection/client-logger.js';
import { McpConnectionManager, silentLogger, type McpLogMessage } from '../src/index.js';
import { isLogNotificationLine } from '../src/transports/log-line.js';
import { ProcessGroupStdioTransport } from '../src/transports/stdio.js';
import { stdioFixture } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  vi.restoreAllMocks();
});

const FLOOD_SECONDS = 3;

describe('a server flooding log messages beside a healthy one', () => {
  it(`passes on at most ${MAX_LOG_MESSAGES_PER_SECOND} a second, counts the rest in a warning, and its neighbour still answers`, async () => {
    const parse = vi.spyOn(JSON, 'parse');
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
    await expect.poll(() => emitted.filter((message) => message.logger === CLIENT_LOGGER).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const heapGrownMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;

    expect(answered).toBeGreaterThan(0);
    const fromServer = emitted.filter((message) => message.logger === 'hostile');
    // One window more than the seconds counted: the first and the last are partial.
    expect(fromServer.length).toBeLessThanOrEqual(MAX_LOG_MESSAGES_PER_SECOND * (Math.ceil(elapsedSeconds) + 2));
    expect(fromServer.map((message) => message.data).slice(0, 3)).toEqual(['log 1', 'log 2', 'log 3']);
    // Those dropped were never parsed (tens of thousands a second are sent).
    const parsedLogLines = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.includes('"logger":"hostile"')).length;
    expect(parsedLogLines).toBeLessThanOrEqual(MAX_LOG_MESSAGES_PER_SECOND * (Math.ceil(elapsedSeconds) + 2));
    const warning = emitted.find((message) => message.logger === CLIENT_LOGGER);
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

describe('a server flooding log messages before its session is live', () => {
  it(`passes on at most ${MAX_LOG_MESSAGES_PER_SECOND} a second of those sent right after its initialize answer, and parses no other`, async () => {
    const FLOOD = 5_000;
    const parse = vi.spyOn(JSON, 'parse');
    const emitted: McpLogMessage[] = [];
    manager = new McpConnectionManager({ logger: silentLogger, defaults: { idleTimeoutMs: 0 } });
    manager.on('mcp.log', (message) => emitted.push(message));
    await manager.connect('hostile', hostileServer('--log-flood', String(FLOOD)));

    const fromServer = () => emitted.filter((message) => message.logger === 'hostile');
    const droppedCount = () =>
      emitted
        .filter((message) => message.logger === CLIENT_LOGGER)
        // Not the warning of those dropped while the connection was not yet watched: they passed the limit.
        .map((message) => /^dropped (\d+) log messages? from this server in the last second/.exec(String(message.data))?.[1])
        .reduce((sum, count) => sum + Number(count ?? 0), 0);
    await expect.poll(droppedCount, { timeout: 10_000 }).toBeGreaterThan(0);
    // The flood comes in within a window or two: all but those windows' share are counted as dropped.
    expect(droppedCount()).toBeGreaterThanOrEqual(FLOOD - MAX_LOG_MESSAGES_PER_SECOND * 2);
    expect(fromServer().length).toBeGreaterThan(0);
    expect(fromServer().length).toBeLessThanOrEqual(MAX_LOG_MESSAGES_PER_SECOND * 2);
    // Those dropped were never parsed.
    const parsedLogLines = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.includes('"logger":"hostile"')).length;
    expect(parsedLogLines).toBeLessThanOrEqual(MAX_LOG_MESSAGES_PER_SECOND * 2);
  }, 30_000);
});

/** Lines a script writes to its stdout, read by our stdio transport under the limit. */
async function readUnderLimit(lines: string[], expected: number): Promise<JSONRPCMessage[]> {
  const script = `process.stdout.write(${JSON.stringify(lines.map((line) => `${line}\n`).join(''))}); setInterval(() => {}, 1000);`;
  const transport = new ProcessGroupStdioTransport(process.execPath, ['-e', script], {});
  const received: JSONRPCMessage[] = [];
  limitLogFlood(transport);
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  try {
    await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(expected);
    return received;
  } finally {
    await transport.close();
  }
}

const logLine = (n: number) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `log ${n}` } });

describe('what is dropped unread once the window is full', () => {
  it('never a request named notifications/message (it has an id) nor an answer that holds a log message', async () => {
    const flood = Array.from({ length: 300 }, (_, n) => logLine(n + 1));
    const request = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"asks"},"id":7}';
    const answer = '{"jsonrpc":"2.0","result":{"method":"notifications/message","params":{"level":"info","data":"held"}},"id":1}';
    const received = await readUnderLimit([...flood, request, answer], MAX_LOG_MESSAGES_PER_SECOND + 2);
    const logs = received.filter((message) => 'params' in message && !('id' in message) && String(message.params?.data).startsWith('log '));
    expect(logs).toHaveLength(MAX_LOG_MESSAGES_PER_SECOND);
    expect(received).toEqual(expect.arrayContaining([expect.objectContaining({ id: 7, method: 'notifications/message' }), expect.objectContaining({ id: 1 })]));
  });

  it('a line is taken for a log message only when it surely is one', () => {
    expect(isLogNotificationLine(logLine(1))).toBe(true);
    expect(isLogNotificationLine(' { "method" : "notifications/message", "params": {"data": [1, {"id": "x}"}], "n": -1.5e3, "ok": true}, "jsonrpc": "2.0" } ')).toBe(true);
    for (const unsure of [
      '{"jsonrpc":"2.0","id":1,"method":"notifications/message"}',
      '{"jsonrpc":"2.0","method":"notifications/message","id":null}',
      '{"jsonrpc":"2.0","result":{"method":"notifications/message"},"id":1}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{}}',
      '{"jsonrpc":"2.0","\\u0069d":1,"method":"notifications/message"}',
      '{"jsonrpc":"2.0","method":"notifications\\/message"}',
      '{"method":"notifications/message","method":"tools/call","id":2}',
      '{"jsonrpc":"2.0","method":"notifications/message"} {"id":3}',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"cut',
      '["notifications/message"]',
      'notifications/message',
    ]) {
      expect(isLogNotificationLine(unsure), unsure).toBe(false);
    }
  });
});

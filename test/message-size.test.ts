/**
 * Sizes are capped: a message over 10 MiB is refused over HTTP and SSE as the SDK refuses it
 * over stdio, error texts (HTTP error bodies, JSON-RPC error messages) are cut, and a cut never
 * splits a surrogate pair. Real HTTP servers on 127.0.0.1 and real processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager } from '../src/index.js';
import { silentLogger } from '../src/logger.js';
import { capErrorText, MAX_ERROR_TEXT, sliceWithinBudget } from '../src/text-limits.js';
import { MAX_MESSAGE_BYTES, MessageTooLargeError, sizeLimitedFetch } from '../src/transports/message-size.js';
import { hugeAnswerServer, listen, stream, type PlainHttpServer } from './fixtures/hostile-http.js';
import { descendantsAfter, textOf } from './support/chaos-helpers.js';
import { runCli } from './support/cli.js';
import { rejectionOf } from './support/fixtures.js';
import { hostileServer, recordingLogger, withPeakHeap } from './support/hostile.js';

const MB = 1024 * 1024;
const managers: McpConnectionManager[] = [];
const servers: PlainHttpServer[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  expect(await descendantsAfter()).toEqual([]);
});

function manager(logger = silentLogger) {
  const created = new McpConnectionManager({ logger });
  managers.push(created);
  return created;
}

async function serve(handle: Parameters<typeof listen>[0]): Promise<string> {
  const server = await listen(handle);
  servers.push(server);
  return server.url;
}

describe('over HTTP', () => {
  it('a 300 MB tools/list is refused after 10 MiB, not read whole', async () => {
    const big = await hugeAnswerServer('tools/list', 300 * MB);
    servers.push(big);
    const before = process.memoryUsage().heapUsed;
    const { value: error, peakHeap } = await withPeakHeap(() => rejectionOf(manager().connect('big', { url: big.url }, { autoReconnect: false })));

    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'big' });
    expect(error.message).toMatch(/"big": the server sent a message over 10 MiB; the client stopped reading it\. It will not be retried\./);
    expect(await big.sent()).toBeLessThan(100 * MB);
    expect(peakHeap - before).toBeLessThan(150 * MB);
  }, 60_000);

  it('a 20 MB tool result fails that call; the connection stays and the next call works', async () => {
    const big = await hugeAnswerServer('tools/call', 20 * MB);
    servers.push(big);
    const { logger, lines } = recordingLogger();
    const mcp = manager(logger);
    await mcp.connect('big', { url: big.url });
    const error = await rejectionOf(mcp.callTool('big', 'huge', {}));
    expect(error).toMatchObject({ code: 'REQUEST_FAILED', server: 'big' });
    expect(error.message).toMatch(/the server sent a message over 10 MiB; the client stopped reading it/);
    expect(mcp.getState('big')).toBe('connected');
    expect(textOf(await mcp.callTool('big', 'echo', { text: 'next' }))).toBe('next');
    expect(lines.warn.join('\n')).not.toMatch(/closed the connection/);
  });

  it('a 20 MB tool result in one event of an event stream fails that call at once, not at its timeout; the connection stays', async () => {
    const big = await hugeAnswerServer('tools/call', 20 * MB, { as: 'sse' });
    servers.push(big);
    const { logger, lines } = recordingLogger();
    const mcp = manager(logger);
    await mcp.connect('big', { url: big.url, timeoutMs: 120_000 });
    const error = await rejectionOf(mcp.callTool('big', 'huge', {}));
    expect(error).toMatchObject({ code: 'REQUEST_FAILED', server: 'big' });
    expect(error.message).toMatch(/the server sent a message over 10 MiB; the client stopped reading it/);
    expect(await big.sent()).toBeLessThan(20 * MB);
    expect(mcp.getState('big')).toBe('connected');
    expect(textOf(await mcp.callTool('big', 'echo', { text: 'next' }))).toBe('next');
    // What is left of the cut event is not read as a message: no warning about unparseable JSON.
    expect(lines.warn).toEqual([]);
  }, 20_000);

  it('a 20 MB error body comes back cut to a few thousand characters', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      void stream(response, 'e'.repeat(MB), 20 * MB);
    });
    const error = await rejectionOf(manager().connect('loud', { url }, { autoReconnect: false }));
    // The first POST of a connect is the era probe (server/discover), so its failure is the one told.
    expect(error.message).toMatch(/"loud": .*\(HTTP 500 Internal Server Error\): e+… \[\d+ more characters not shown\]/);
    expect(error.message.length).toBeLessThan(MAX_ERROR_TEXT + 500);
  });

  it('the CLI prints a cut error body once', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      void stream(response, `unique-marker ${'e'.repeat(MB)}`, 20 * MB);
    });
    const home = mkdtempSync(join(tmpdir(), 'mcp-size-'));
    try {
      const config = join(home, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { loud: { url } } }));
      const run = await runCli(['--config', config, 'load', 'loud'], { cwd: home, env: { HOME: home } });
      expect(run.code).toBe(1);
      expect(run.stderr.match(/unique-marker/g)).toHaveLength(1);
      expect(run.stderr.length).toBeLessThan(MAX_ERROR_TEXT + 2_000);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 30_000);

  it('an SSE stream may carry any number of events, but not one over 10 MiB', async () => {
    const event = (size: number) => `data: ${'d'.repeat(size)}\n\n`;
    const url = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (request.url?.endsWith('many')) void stream(response, event(MB / 4).repeat(4), 30 * MB);
      else void stream(response, 'data: ' + 'x'.repeat(MB), 12 * MB);
    });
    const read = async (path: string) => {
      const response = await sizeLimitedFetch()(`${url}/${path}`);
      const reader = response.body!.getReader();
      let bytes = 0;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.length;
      return bytes;
    };
    expect(await read('many')).toBeGreaterThan(30 * MB);
    await expect(read('one')).rejects.toBeInstanceOf(MessageTooLargeError);
    expect(MAX_MESSAGE_BYTES).toBe(10 * MB);
  });
});

describe('over stdio', () => {
  it('a 5 MB JSON-RPC error message comes back cut to a few thousand characters', async () => {
    const mcp = manager();
    await mcp.connect('wordy', hostileServer());
    const error = await rejectionOf(mcp.callTool('wordy', 'fail', { mb: 5 }));
    expect(error).toMatchObject({ code: 'REQUEST_FAILED', server: 'wordy' });
    expect(error.message).toMatch(/^MCP server "wordy" failed calling tool "fail": MCP error -32000: x+… \[\d+ more characters not shown\]$/);
    expect(error.message.length).toBeLessThan(MAX_ERROR_TEXT + 200);
  });

  it('a message over 10 MiB: the error says the client closed the connection, and no warning says it stays up', async () => {
    const { logger, lines } = recordingLogger();
    const mcp = manager(logger);
    await mcp.connect('huge', hostileServer('--huge', '11'), { autoReconnect: false });
    const error = await rejectionOf(mcp.callTool('huge', 'huge', {}));
    expect(error.message).toMatch(/the server sent a message over 10 MiB, so the client closed the connection/);
    expect(error.message).not.toMatch(/the server closed the connection/);
    expect(lines.warn.join('\n')).not.toMatch(/stays up/);
  });

  it('no "(the connection stays up)" warning before a connect that fails', async () => {
    const { logger, lines } = recordingLogger();
    const config = { command: process.execPath, args: ['-e', 'console.log("this is not JSON"); setTimeout(() => process.exit(1), 100)'] };
    const error = await rejectionOf(manager(logger).connect('garbled', config, { autoReconnect: false }));
    expect(error.message).toMatch(/Could not connect to MCP server "garbled"/);
    expect(lines.warn.join('\n')).not.toMatch(/stays up/);
  });
});

describe('what the model and the CLI are told of an answer over 10 MiB', () => {
  const askForLess = /over the 10 MiB limit, so (calling|running the command) again (the same way )?fails the same way.*: ask for less \(narrower arguments, a filter, a page at a time\)/;

  it('call_mcp_tool says to ask for less, not to call again or to load the server', async () => {
    const mcp = manager();
    const tools = createLoaderTools({ manager: mcp, servers: { huge: hostileServer('--huge', '11') } });
    await tools.find((tool) => tool.name === 'load_mcp')!.execute({ server: 'huge' });
    const answer = await tools.find((tool) => tool.name === 'call_mcp_tool')!.execute({ server: 'huge', tool: 'huge' });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(askForLess);
    expect(answer.text).not.toMatch(/load_mcp|call again if/);
  }, 60_000);

  it('a stdio answer over the limit: `call` hints to ask for less, not to run it again', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-size-'));
    try {
      const config = join(home, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { huge: hostileServer('--huge', '11') } }));
      const run = await runCli(['--config', config, 'call', 'huge', 'huge'], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(askForLess);
      expect(run.stderr).not.toMatch(/run the command again \(it reconnects\)/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);

  it('an HTTP answer over the limit: `call` hints to ask for less', async () => {
    const big = await hugeAnswerServer('tools/call', 20 * MB);
    servers.push(big);
    const home = mkdtempSync(join(tmpdir(), 'mcp-size-'));
    try {
      const config = join(home, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { big: { url: big.url } } }));
      const run = await runCli(['--config', config, 'call', 'big', 'huge'], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(askForLess);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('cutting text', () => {
  it('never splits a surrogate pair', () => {
    const emoji = '😀';
    expect(sliceWithinBudget(`ab${emoji}`, 3)).toBe('ab');
    expect(sliceWithinBudget(`ab${emoji}`, 4)).toBe(`ab${emoji}`);
    expect(capErrorText(emoji.repeat(10), 5)).toBe(`${emoji.repeat(2)}… [15 more characters not shown]`);
  });

  it('never splits an emoji sequence, a flag or a letter from its accents: the cut comes before the whole character', () => {
    const family = '👨‍👩‍👧‍👦';
    expect(sliceWithinBudget(`ab${family}${family}`, 2 + family.length + 5)).toBe(`ab${family}`);
    expect(sliceWithinBudget('🇯🇵🇩🇪', 6)).toBe('🇯🇵');
    expect(sliceWithinBudget('cafe\u0301 au lait', 4)).toBe('caf');
    expect(sliceWithinBudget('cafe\u0301 au lait', 5)).toBe('cafe\u0301');
    expect(sliceWithinBudget(`${'x'.repeat(1_000_000)}${family}`, 1_000_003)).toBe('x'.repeat(1_000_000));
  });
});

/**
 * A `server/discover` answer too deep (over MAX_MESSAGE_DEPTH levels) or too large (over 10 MiB)
 * fails the connect once and everywhere: over stdio and Streamable HTTP (a JSON body or an event
 * stream), whether this client probes (`"protocol": "auto"` over stdio) or the SDK does (HTTP, and
 * `"protocol": "modern"`). The server would send it again, so it is a config error, not retried:
 * one process started, one server/discover asked. It is no sign of a legacy server either, so no
 * `initialize` follows. A legacy server's `initialize` answer over 10 MiB over stdio is as final.
 * Real processes (test/fixtures/hostile-discover.mjs) and real HTTP servers
 * on 127.0.0.1 port 0.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpProtocolPreference, type McpServerConfig } from '../src/index.js';
import { MAX_MESSAGE_DEPTH } from '../src/connection/message-depth-limit.js';
import { listen, stream, type PlainHttpServer } from './fixtures/hostile-http.js';
import { descendantsAfter } from './support/chaos-helpers.js';
import { rejectionOf } from './support/fixtures.js';

const SERVER = fileURLToPath(new URL('./fixtures/hostile-discover.mjs', import.meta.url));
const MB = 1024 * 1024;
const TOO_LARGE = "the server's answer to server/discover is over 10 MiB; the client stopped reading it";
const TOO_DEEP = `the server's answer to server/discover nests deeper than ${MAX_MESSAGE_DEPTH} levels`;
// Without the limit's verdict, each of these would be retried four times, one millisecond apart.
const QUICK_RETRIES = { backoff: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0 } };

const managers: McpConnectionManager[] = [];
const servers: PlainHttpServer[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  expect(await descendantsAfter()).toEqual([]);
});

function manager() {
  const created = new McpConnectionManager({ logger: silentLogger });
  managers.push(created);
  return created;
}

/** The stdio fixture in `mode`, and how many times it was started. */
function stdioServer(mode: 'deep' | 'huge' | 'legacy', protocol: McpProtocolPreference): { config: McpServerConfig; starts(): number } {
  const starts = join(mkdtempSync(join(tmpdir(), 'hostile-handshake-')), 'starts');
  writeFileSync(starts, '');
  const env = { MODE: mode, HUGE_CHARS: String(12 * MB), STARTS: starts };
  return {
    config: { command: process.execPath, args: [SERVER], env, protocol },
    starts: () => readFileSync(starts, 'utf8').split('\n').filter(Boolean).length,
  };
}

/**
 * A Streamable HTTP server whose server/discover answer is hostile as `answer` says (12 MiB as
 * JSON or as one event, or nested 200,000 levels), and which answers `initialize` as a legacy
 * server would: the connect must not get that far.
 */
async function httpServer(answer: 'huge-json' | 'huge-event' | 'deep' | 'spoofed-cut') {
  const asked: string[] = [];
  const server = await listen((request, response, body) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    const message = JSON.parse(body);
    if (message.id === undefined) return void response.writeHead(202).end();
    asked.push(message.method);
    const id = JSON.stringify(message.id);
    if (message.method === 'server/discover') {
      const head = `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},`;
      if (answer === 'spoofed-cut') {
        // The key this client marks the answers it writes for a cut stream with: a legacy server's own error here.
        const error = { code: -32603, message: 'no server/discover here', data: { 'mcp-statechart-cut': true } };
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error }));
      }
      if (answer === 'deep') {
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end(`${head}"instructions":"deep","_meta":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}}`);
      }
      const event = answer === 'huge-event';
      response.writeHead(200, { 'content-type': event ? 'text/event-stream' : 'application/json' });
      response.write(`${event ? 'event: message\ndata: ' : ''}${head}"instructions":"`);
      return void stream(response, 'y'.repeat(MB), 12 * MB, `"}}${event ? '\n\n' : ''}`);
    }
    const result =
      message.method === 'initialize'
        ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1' } }
        : { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  });
  servers.push(server);
  return { url: server.url, asked };
}

describe('over stdio', () => {
  for (const protocol of ['auto', 'modern'] as const) {
    it(`a server/discover answer nested 200,000 levels deep fails the connect once, not retried ("protocol": "${protocol}")`, async () => {
      const server = stdioServer('deep', protocol);
      const failure = await rejectionOf(manager().connect('deep', server.config, QUICK_RETRIES));
      expect(failure).toMatchObject({ code: 'CONFIG_ERROR', server: 'deep' });
      expect(failure.message).toContain(TOO_DEEP);
      expect(failure.message).toContain('It will not be retried.');
      expect(server.starts()).toBe(1);
    }, 60_000);

    it(`a server/discover answer of 12 MiB fails the connect once, saying it is too large ("protocol": "${protocol}")`, async () => {
      const server = stdioServer('huge', protocol);
      const failure = await rejectionOf(manager().connect('huge', server.config, QUICK_RETRIES));
      expect(failure).toMatchObject({ code: 'CONFIG_ERROR', server: 'huge' });
      expect(failure.message).toContain(TOO_LARGE);
      expect(failure.message).toContain('It will not be retried.');
      expect(server.starts()).toBe(1);
    }, 60_000);
  }
  // With "auto" the probe's process (server/discover, refused) is ended and the session starts its own.
  for (const [protocol, starts] of [['auto', 2], ['legacy', 1]] as const) {
    it(`a legacy server's initialize answer of 12 MiB fails the connect once, saying it is too large ("protocol": "${protocol}")`, async () => {
      const server = stdioServer('legacy', protocol);
      const failure = await rejectionOf(manager().connect('huge', server.config, QUICK_RETRIES));
      expect(failure).toMatchObject({ code: 'CONFIG_ERROR', server: 'huge' });
      expect(failure.message).toContain("the server's answer to initialize is over 10 MiB; the client stopped reading it");
      expect(failure.message).toContain('It will not be retried.');
      expect(server.starts()).toBe(starts);
    }, 60_000);
  }
});

describe('over Streamable HTTP', () => {
  for (const protocol of ['auto', 'modern'] as const) {
    for (const answer of ['huge-json', 'huge-event'] as const) {
      it(`a server/discover answer of 12 MiB (${answer === 'huge-json' ? 'a JSON body' : 'one event'}) fails the connect once, saying it is too large ("protocol": "${protocol}")`, async () => {
        const server = await httpServer(answer);
        const failure = await rejectionOf(manager().connect('huge', { url: server.url, protocol }, QUICK_RETRIES));
        expect(failure).toMatchObject({ code: 'CONFIG_ERROR', server: 'huge' });
        expect(failure.message).toContain(TOO_LARGE);
        expect(failure.message).toContain('It will not be retried.');
        expect(server.asked).toEqual(['server/discover']);
      }, 60_000);
    }

    it(`a server/discover answer nested 200,000 levels deep fails the connect once, not taken for a legacy server ("protocol": "${protocol}")`, async () => {
      const server = await httpServer('deep');
      const failure = await rejectionOf(manager().connect('deep', { url: server.url, protocol }, QUICK_RETRIES));
      expect(failure).toMatchObject({ code: 'CONFIG_ERROR', server: 'deep' });
      expect(failure.message).toContain(TOO_DEEP);
      expect(server.asked).toEqual(['server/discover']);
    }, 60_000);
  }

  it('a server/discover error answer that names the mark of a cut answer is the server\'s own: a legacy server, connected', async () => {
    const server = await httpServer('spoofed-cut');
    const connection = await manager().connect('spoofed', { url: server.url, protocol: 'auto' }, QUICK_RETRIES);
    expect(connection.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(server.asked).toEqual(['server/discover', 'initialize', 'tools/list']);
  }, 60_000);
});

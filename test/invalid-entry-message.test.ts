/**
 * An entry that cannot work as written (no transport, one not spoken here, a URL that is not http(s)) fails to connect
 * with a config error whose message reads as sentences: the problem, the field, one period, then
 * what to do. Nothing is started.
 */
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpConnectOptions, type McpServerConfig } from '../src/index.js';

/** `config` as a file or a JavaScript caller may write it: the types refuse both entries. */
const connectError = async (config: object, options: object = { maxRetries: 0 }) => {
  const manager = new McpConnectionManager({ logger: silentLogger });
  try {
    return (await manager.connect('notes', config as McpServerConfig, options as McpConnectOptions).catch((caught: unknown) => caught)) as Error & { code?: string };
  } finally {
    await manager.disconnectAll();
  }
};

describe('an entry that cannot work as written', () => {
  it.each([
    { entry: 'a misspelt "command"', config: { comand: 'node' }, problem: 'no transport: give "command" (stdio), "url" (http) or a known "type" (field "type").' },
    { entry: 'a "url" that is not http(s)', config: { type: 'http', url: 'notes.example' }, problem: 'the "url" is not a valid http(s) URL (field "url").' },
    {
      entry: 'LangChain\'s "transport": "websocket"',
      config: { transport: 'websocket', url: 'ws://127.0.0.1:9/mcp' },
      problem:
        '"transport" names WebSocket, which is not an MCP transport this client speaks (MCP servers are reached over stdio, Streamable HTTP or SSE): give the server\'s http(s) URL with "type": "http" (or "sse"), or a "command" to run it over stdio (field "transport").',
    },
    {
      entry: 'a ws:// "url" with no type',
      config: { url: 'ws://127.0.0.1:9/mcp' },
      problem:
        'the "url" names WebSocket, which is not an MCP transport this client speaks (MCP servers are reached over stdio, Streamable HTTP or SSE): give the server\'s http(s) URL with "type": "http" (or "sse"), or a "command" to run it over stdio (field "url").',
    },
    { entry: 'a misspelt "transportType"', config: { transportType: 'htttp', url: 'http://127.0.0.1:9/mcp' }, problem: '"transportType" is not a known transport (use stdio, http, streamable-http, streamableHttp, sse) (field "transportType").' },
    {
      entry: 'a "url" with user:password (fetch refuses it, every time)',
      config: { type: 'http', url: 'http://me:s3cret-password@127.0.0.1:9/mcp' },
      problem: 'the "url" carries a user name or password, which fetch refuses to send: give the credential in "headers" (an "Authorization" header) instead (field "url").',
    },
  ])('$entry: a config error, the problem and its field, one period, and what to do', async ({ config, problem }) => {
    const error = await connectError(config);
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toBe(`Could not connect to MCP server "notes": MCP server "notes": ${problem} Fix the server entry; it will not be retried.`);
  });
});

describe('connect options no attempt could honour', () => {
  const fixture = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
  it.each([
    { options: { connectTimeoutMs: 0 }, problem: 'the connect option connectTimeoutMs is 0; it must be a number of milliseconds above 0 and at most 2147483647 (field "connectTimeoutMs").' },
    { options: { connectTimeoutMs: -5 }, problem: 'the connect option connectTimeoutMs is -5; it must be a number of milliseconds above 0 and at most 2147483647 (field "connectTimeoutMs").' },
    { options: { connectTimeoutMs: Number.NaN }, problem: 'the connect option connectTimeoutMs is NaN; it must be a number of milliseconds above 0 and at most 2147483647 (field "connectTimeoutMs").' },
    { options: { maxRetries: -1 }, problem: 'the connect option maxRetries is -1; it must be a whole number, 0 or more, or Infinity (field "maxRetries").' },
    { options: { idleTimeoutMs: 'x' }, problem: 'the connect option idleTimeoutMs is "x"; it must be a number of milliseconds, 0 or more (0 or Infinity: never) (field "idleTimeoutMs").' },
    { options: { backoff: { jitter: 2 } }, problem: 'the connect option backoff.jitter is 2; it must be a number from 0 to 1 (field "backoff.jitter").' },
  ])('$options: a config error (never retried, so the default maxRetries waits for nothing), naming the option, the value and what is allowed', async ({ options, problem }) => {
    const error = await connectError(fixture, options);
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toBe(`Could not connect to MCP server "notes": MCP server "notes": ${problem} Fix the server entry; it will not be retried.`);
  });

  it('a "command" that is not a string says so (was "no transport")', async () => {
    const error = await connectError({ command: 5 });
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toBe('Could not connect to MCP server "notes": MCP server "notes": "command" must be a string, got 5 (field "command"). Fix the server entry; it will not be retried.');
  });

  it.each([
    { entry: 'args as one string', config: { command: process.execPath, args: 'server.mjs' }, problem: '"args" must be an array of strings, got "server.mjs" (field "args").' },
    { entry: 'args with a number', config: { command: process.execPath, args: ['server.mjs', 8080] }, problem: '"args" must be an array of strings, got an array (field "args").' },
    { entry: 'a number for cwd', config: { command: process.execPath, cwd: 5 }, problem: '"cwd" must be a string, got 5 (field "cwd").' },
  ])('$entry from plain JavaScript: a config error before anything is spawned (args as a string started each character, "Cannot find module")', async ({ config, problem }) => {
    const error = await connectError(config);
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toBe(`Could not connect to MCP server "notes": MCP server "notes": ${problem} Fix the server entry; it will not be retried.`);
  });
});

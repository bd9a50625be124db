/**
 * An entry that cannot work as written (no transport, a URL that is not http(s)) fails to connect
 * with a config error whose message reads as sentences: the problem, the field, one period, then
 * what to do. Nothing is started.
 */
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpServerConfig } from '../src/index.js';

/** `config` as a file or a JavaScript caller may write it: the types refuse both entries. */
const connectError = async (config: object) => {
  const manager = new McpConnectionManager({ logger: silentLogger });
  try {
    return (await manager.connect('notes', config as McpServerConfig, { maxRetries: 0 }).catch((caught: unknown) => caught)) as Error & { code?: string };
  } finally {
    await manager.disconnectAll();
  }
};

describe('an entry that cannot work as written', () => {
  it.each([
    { entry: 'a misspelt "command"', config: { comand: 'node' }, problem: 'no transport: give "command" (stdio), "url" (http) or a known "type" (field "type").' },
    { entry: 'a "url" that is not http(s)', config: { type: 'http', url: 'notes.example' }, problem: 'the "url" is not a valid http(s) URL (field "url").' },
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

/**
 * Server entries copied from LangChain's MultiServerMCPClient (JavaScript or Python): what it
 * reads that nothing here does (`restart`, `reconnect`) is warned about once per server, naming
 * what does the same here; Python's `transport: "streamable_http"` loads from a file as http, and
 * compiles when written in code (tsconfig.json includes test/: `npm run typecheck` checks it).
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverMcpServers, type McpServerConfig } from '../src/index.js';

let root: string;
let userFile: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-langchain-')));
  userFile = path.join(root, 'mcp.json');
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function discoverFile(mcpServers: Record<string, unknown>) {
  await fs.writeFile(userFile, JSON.stringify({ mcpServers }));
  return discoverMcpServers({ userConfigPath: userFile, cwd: root, env: {} });
}

describe('an entry copied from LangChain', () => {
  it('with "restart" or "reconnect": loads, with one warning per server naming the connect options that do the same here', async () => {
    const { servers, problems } = await discoverFile({
      notes: { transport: 'stdio', command: 'notes-server', restart: { enabled: true, maxAttempts: 3, delayMs: 1000 } },
      weather: { transport: 'http', url: 'https://weather.example/mcp', reconnect: { enabled: true, maxAttempts: 5 } },
      both: { command: 'both-server', restart: { enabled: false }, reconnect: { enabled: false } },
      plain: { command: 'plain-server' },
    });
    expect(Object.keys(servers)).toEqual(['notes', 'weather', 'both', 'plain']);
    expect(problems.map(({ severity, server, field }) => ({ severity, server, field }))).toEqual([
      { severity: 'warning', server: 'notes', field: 'restart' },
      { severity: 'warning', server: 'weather', field: 'reconnect' },
      { severity: 'warning', server: 'both', field: 'restart' },
    ]);
    expect(problems[0]!.message).toBe(
      'server "notes": "restart" (LangChain\'s retry setting) is not read here and can be removed: a server that fails to connect or drops is retried by itself ' +
        '(3 retries, waiting 1 s, then twice as long each time); a program sets this with the connect options autoReconnect, maxRetries and backoff (README, "Coming from LangChain")',
    );
    expect(problems[2]!.message).toMatch(/^server "both": "restart" and "reconnect" \(LangChain's retry settings\) are not read here/);
  });

  it('with Python\'s "transport": "streamable_http": loads as http from a file, and compiles in code', async () => {
    const { servers, problems } = await discoverFile({ remote: { transport: 'streamable_http', url: 'https://remote.example/mcp' } });
    expect(servers.remote?.transport).toBe('http');
    expect(problems).toEqual([]);
    const inCode: McpServerConfig = { transport: 'streamable_http', url: 'https://remote.example/mcp' };
    expect(inCode.transport).toBe('streamable_http');
  });
});

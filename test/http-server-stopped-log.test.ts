/**
 * An HTTP server stopped mid-session: Node's fetch says only "fetch failed", so the warning names
 * the cause beneath it (the refusal and the address), never the URL's query or the entry's headers;
 * and a call sent then fails at once (CONNECTION_LOST), not after its timeoutMs. Real HTTP on 127.0.0.1, port 0.
 */
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, type Logger } from '../src/index.js';
import { startHttpFixture } from './fixtures/http-server.js';

const QUERY_SECRET = 'query-secret-4711';
const HEADER_SECRET = 'header-secret-0815';

describe('an HTTP server stopped while connected', () => {
  it('is logged as not reached, with its origin and the cause beneath "fetch failed", and the call fails at once', async () => {
    const fixture = await startHttpFixture();
    const lines: string[] = [];
    const keep = (line: string) => lines.push(line);
    const logger: Logger = { debug: keep, info: keep, warn: (line) => lines.push(`warn ${line}`), error: keep };
    const manager = new McpConnectionManager({ logger });
    try {
      const url = `${fixture.url}?key=${QUERY_SECRET}`;
      await manager.connect('web', { type: 'http', url, headers: { Authorization: `Bearer ${HEADER_SECRET}` } }, { maxRetries: 0 });
      await fixture.close();
      const started = Date.now();
      const error = await manager.callTool('web', 'echo', { text: 'hi' }, { timeoutMs: 20_000 }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'CONNECTION_LOST' });
      expect(Date.now() - started).toBeLessThan(10_000);
      const warning = lines.find((line) => line.startsWith('warn') && line.includes('fetch failed'));
      expect(warning).toMatch(new RegExp(`^warn MCP server "web": "http://127.0.0.1:${fixture.port}" was not reached: fetch failed \\((other side closed, UND_ERR_SOCKET|connect ECONNREFUSED 127.0.0.1:${fixture.port})\\)$`));
      expect(lines.join('\n')).not.toContain(QUERY_SECRET);
      expect(lines.join('\n')).not.toContain(HEADER_SECRET);
    } finally {
      await manager.disconnectAll();
    }
  }, 30_000);
});

import { afterAll, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { login } from '../src/entries/oauth.js';
import { afterThisTest, loginDir, oauthFixture, recordingLogger } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

/** What reaches the console: set before any manager exists, as an application's own console.warn would be. */
const consoleLines: string[] = [];
const ownWarn = console.warn;
console.warn = (...args: unknown[]) => void consoleLines.push(args.map(String).join(' '));

/** A login whose refresh the authorization server refuses: the SDK warns `[mcp-sdk] OAuth "invalid_grant" …` on its way. */
async function refusedRefresh(logger = silentLogger) {
  const fixture = await oauthFixture({ refresh: 'fail' });
  const dir = loginDir();
  await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
  const manager = new McpConnectionManager({ logger, oauth: { dir } });
  afterThisTest(() => manager.dispose());
  fixture.expireAccessTokens();
  consoleLines.length = 0;
  await rejectionOf(manager.connect('remote', { url: fixture.url }, { maxRetries: 0 }));
}

describe('the SDK\'s own warnings ([mcp-sdk] lines) in a library', () => {
  afterAll(() => void (console.warn = ownWarn));

  it('with silentLogger, none reaches the console', async () => {
    await refusedRefresh();
    expect(consoleLines.filter((line) => line.includes('[mcp-sdk]'))).toEqual([]);
  });

  it('with a logger of its own, they reach that logger at debug, not the console; the application\'s own console.warn lines still reach the console', async () => {
    const { logger, lines } = recordingLogger();
    await refusedRefresh(logger);
    expect(consoleLines.filter((line) => line.includes('[mcp-sdk]'))).toEqual([]);
    expect(lines.filter((line) => line.includes('[mcp-sdk]'))).toEqual([expect.stringMatching(/^debug \[mcp-sdk\] OAuth "invalid_grant" — /)]);
    console.warn('[mcp-sdk] written by the application itself, outside any request');
    console.warn('an application line');
    expect(consoleLines).toEqual(['[mcp-sdk] written by the application itself, outside any request', 'an application line']);
  });
});

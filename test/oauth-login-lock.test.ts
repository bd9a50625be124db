/**
 * Two logins of one server at once (two terminals, or `login` while `serve` logs in): the second
 * waits for the first, then reuses the client the first registered. Run side by side, each would
 * register a client and the file keeps one, so the first could not redeem its code. A real
 * authorization server on 127.0.0.1 (test/fixtures/oauth-server.ts), the logins' own listeners.
 * A logout beside a running login is refused: the login would store its tokens again when it ends.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { login, logout, OAuthTokenStore } from '../src/entries/oauth.js';
import { withLoginLock } from '../src/auth/login-lock.js';
import { afterThisTest, loginDir, oauthFixture } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('two logins of one server at once', () => {
  it('the second waits for the first, saying so; both log in, with one client, and the stored login refreshes', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const printed: string[] = [];
    // A browser comes back only once both logins have started: one waits for the other, or both reached a browser.
    const bothStarted = gate();
    let atBrowser = 0;
    const options = {
      dir,
      print: (line: string) => {
        printed.push(line);
        if (line.startsWith('Another login')) bothStarted.open();
      },
      openBrowser: async (url: URL) => {
        if (++atBrowser === 2) bothStarted.open();
        await bothStarted.opened;
        await fixture.browse(url);
      },
    };
    const results = await Promise.allSettled([login('remote', { url: fixture.url }, options), login('remote', { url: fixture.url }, options)]);

    expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual(['ok', 'ok']);
    const waited = printed.filter((line) => line.startsWith('Another login'));
    expect(waited).toHaveLength(1);
    expect(waited[0]).toMatch(/^Another login of MCP server "remote" is running \(process \d+\): waiting for it to end/);
    // The one that waited reused the client the first registered.
    expect(fixture.registrations).toHaveLength(1);

    fixture.expireAccessTokens();
    const manager = new McpConnectionManager({ oauth: { dir } });
    afterThisTest(() => manager.dispose());
    await manager.connect('remote', { url: fixture.url });
    expect(fixture.tokenRequests.map((request) => request.grantType)).toEqual(['authorization_code', 'authorization_code', 'refresh_token']);
  });

  it('a login that waits longer than its timeout for another one says another login is running', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const firstAtBrowser = gate();
    const released = gate();
    const first = login('remote', { url: fixture.url }, {
      dir,
      print: () => {},
      openBrowser: async (url) => {
        firstAtBrowser.open();
        await released.opened;
        await fixture.browse(url);
      },
    });
    await firstAtBrowser.opened;
    const error = await rejectionOf(login('remote', { url: fixture.url }, { dir, timeoutMs: 200, openBrowser: fixture.browse, print: () => {} }));
    released.open();
    await first;

    expect(error.message).toMatch(/^another login of MCP server "remote" is running \(process \d+\) and did not end within 200 ms; finish or cancel it, then run the login again/);
    expect(fixture.authorizations).toHaveLength(1);
    expect(new OAuthTokenStore('remote', dir).read().tokens).toBeDefined();
  });
});

describe('a login that runs longer than its lock\'s hold', () => {
  afterEach(() => vi.useRealTimers());

  /** A login of "remote" holding the lock (held in `run`) until `released` opens. */
  async function holdingLogin(holdMs: number) {
    const dir = loginDir();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'remote.json');
    const holding = gate();
    const released = gate();
    const done = withLoginLock('remote', file, async () => {
      holding.open();
      await released.opened;
    }, { waitMs: 0, holdMs, print: () => {} });
    await holding.opened;
    return { file, lock: `${file}.login-lock`, release: () => (released.open(), done) };
  }

  it('keeps its lock while it lives: a second login is told it runs instead of taking the lock over', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'], shouldAdvanceTime: true });
    const first = await holdingLogin(60_000);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    // The holder stamps its lock as time passes: ten minutes on, it is seconds old, not ten minutes.
    await vi.waitFor(() => expect(Date.now() - statSync(first.lock).mtimeMs).toBeLessThan(60_000));

    let secondRan = false;
    const second = await rejectionOf(
      withLoginLock('remote', first.file, async () => void (secondRan = true), { waitMs: 0, holdMs: 60_000, print: () => {} }),
    );
    expect(second.message).toMatch(new RegExp(`^another login of MCP server "remote" is running \\(process ${process.pid}\\) and did not end within 0 ms`));
    expect(secondRan).toBe(false);
    await first.release();
    expect(existsSync(first.lock)).toBe(false);
  });

  it('removes only its own lock when it ends, not one another login took since', async () => {
    const first = await holdingLogin(60_000);
    // Taken over meanwhile (a host sharing the folder counted it stale): the lock now names another process.
    rmSync(first.lock);
    const other = `${process.ppid}@${hostname()}\n`;
    writeFileSync(first.lock, other);
    await first.release();
    expect(readFileSync(first.lock, 'utf8')).toBe(other);
  });
});

describe('a logout while a login of the server runs', () => {
  it('is refused at once, naming the login\'s process; the login ends stored', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const atBrowser = gate();
    const released = gate();
    const running = login('remote', { url: fixture.url }, {
      dir,
      print: () => {},
      openBrowser: async (url) => {
        atBrowser.open();
        await released.opened;
        await fixture.browse(url);
      },
    });
    await atBrowser.opened;
    const error = await rejectionOf(logout('remote', { dir }));
    released.open();
    await running;

    expect(error.message).toMatch(/^a login of MCP server "remote" is running \(process \d+\); finish or cancel it there, then log out again/);
    expect(new OAuthTokenStore('remote', dir).read().tokens).toBeDefined();
    expect(await logout('remote', { dir })).toMatchObject({ removed: true });
  });
});

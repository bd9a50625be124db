import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginFileName } from '../src/auth/token-store.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';
import { CLI_COMMAND, runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';

/** A key the server does not take, sent by an entry's own Authorization header. */
const WRONG_KEY = 'wrong-key-canary-4f1e9';
const PINNED_SECRET = 'pinned-secret-canary-77c2';
let home: string;
let config: string;
let fixture: OAuthFixture;
/** An authorization server that refuses every refresh: its logins end when their access token does. */
let unrenewable: OAuthFixture;

beforeAll(async () => {
  fixture = await startOAuthFixture();
  unrenewable = await startOAuthFixture({ refresh: 'fail' });
  home = mkdtempSync(join(tmpdir(), 'mcp-cli-login-'));
  mkdirSync(join(home, '.ai-zen'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        remote: { url: fixture.url },
        local: stdioFixture(),
        keyed: { url: fixture.url, headers: { Authorization: `Bearer ${WRONG_KEY}` } },
        unrenewable: { url: unrenewable.url },
        /** Never logged in to: Ctrl-C's test. */
        interrupted: { url: fixture.url },
        pinned: { url: fixture.url, oauth: { issuer: 'https://auth.example.com', clientId: 'pre-registered', clientSecret: PINNED_SECRET } },
      },
    }),
  );
});
afterAll(async () => {
  await Promise.all([fixture.close(), unrenewable.close()]);
  rmSync(home, { recursive: true, force: true });
});

/**
 * Runs `login`, plays the browser with the URL it prints, and returns what it wrote. `opener`: let
 * the CLI open a browser with what PATH holds (this folder) instead of passing `--no-browser`.
 * `beforeBrowsing`: what happens while the login waits for the browser, which comes back after it.
 */
function loginAndBrowse(
  server = 'remote',
  authorizer = fixture,
  opener?: { path: string },
  beforeBrowsing: () => Promise<void> = async () => {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, '--config', config, 'login', server, ...(opener ? [] : ['--no-browser'])], {
    cwd: home,
    env: { ...process.env, HOME: home, ...(opener ? { PATH: opener.path } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let browsed = false;
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\S+)$/m.exec(stderr)?.[1];
    if (url && !browsed) {
      browsed = true;
      void beforeBrowsing().finally(() => authorizer.browse(new URL(url)));
    }
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr, stdout });
    });
  });
}

describe('mcp-statechart login / logout', () => {
  it('logs in through the printed URL, stores the tokens 0600 without printing them, and logout forgets them', async () => {
    const run = await loginAndBrowse();
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/To authorize MCP server "remote", open this URL/);
    expect(run.stderr).toMatch(/Logged in to "remote"/);
    const file = join(home, '.ai-zen', 'mcp-oauth', 'remote.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, 'utf8');
    const token = /"access_token":\s*"([^"]+)"/.exec(stored)?.[1];
    expect(token).toBeTruthy();
    expect(run.stdout + run.stderr).not.toContain(token!);

    const loaded = await runCli(['--config', config, 'call', 'remote', 'echo', '{"text":"with a token"}'], { cwd: home, env: { HOME: home } });
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toContain('with a token');
    expect(loaded.stdout + loaded.stderr).not.toContain(token!);

    const out = await runCli(['logout', 'remote'], { cwd: home, env: { HOME: home } });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/Logged out of "remote"/);
    expect(existsSync(file)).toBe(false);

    const refused = await runCli(['--config', config, 'load', 'remote'], { cwd: home, env: { HOME: home } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/mcp-statechart login remote/);
    // Said once, as the hint: the error's own sentence no longer repeats it.
    expect(refused.stderr.match(/mcp-statechart login remote/g)).toHaveLength(1);
    expect(refused.stderr).toMatch(/^Hint: run `mcp-statechart login remote`$/m);
  }, 60_000);

  it('logout while a login of that server waits for the browser in another terminal: exit 1, naming its process, and the login ends stored', async () => {
    let refused: Awaited<ReturnType<typeof runCli>> | undefined;
    const run = await loginAndBrowse('remote', fixture, undefined, async () => {
      refused = await runCli(['logout', 'remote'], { cwd: home, env: { HOME: home } });
    });

    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toMatch(
      /^Error: a login of MCP server "remote" is running \(process \d+\); finish or cancel it there, then log out again \(logged out now, the login would store its tokens again when it ends\)\n$/,
    );
    expect(refused?.stdout).toBe('');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/Logged in to "remote"/);
    const out = await runCli(['logout', 'remote'], { cwd: home, env: { HOME: home } });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/Logged out of "remote"/);
  }, 60_000);

  it('says it opens a browser only when an opener started: with --no-browser or no opener on PATH, to open the URL by hand', async () => {
    const printedUrl = (stderr: string) => /^\s+(http:\/\/127\.0\.0\.1:\d+\/\S+)$/m.exec(stderr)?.[1];
    const byHand = await loginAndBrowse();
    expect(byHand.code).toBe(0);
    expect(byHand.stderr).not.toContain('Opening it in your browser');
    expect(byHand.stderr).toContain('(No browser is opened: open the URL above by hand.)');

    const noOpener = await loginAndBrowse('remote', fixture, { path: mkdtempSync(join(home, 'empty-path-')) });
    expect(noOpener.code).toBe(0);
    expect(noOpener.stderr).not.toContain('Opening it in your browser');
    expect(noOpener.stderr).toContain('(No browser could be opened here: open the URL above by hand.)');

    // An opener that starts (it only writes down the URL it got; the test plays the browser).
    const bin = mkdtempSync(join(home, 'opener-path-'));
    const record = join(home, 'opened-url');
    for (const name of ['xdg-open', 'open']) writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`, { mode: 0o755 });
    const opened = await loginAndBrowse('remote', fixture, { path: bin });
    expect(opened.code).toBe(0);
    expect(opened.stderr).toContain('(Opening it in your browser.)');
    expect(opened.stderr).not.toContain('by hand');
    await expect.poll(() => (existsSync(record) ? readFileSync(record, 'utf8') : ''), { timeout: 5_000 }).toBe(printedUrl(opened.stderr));
  }, 60_000);

  it('a login whose refresh is refused: one account of it, the hint to log in, none of the SDK\'s "retrying authorization" (that with --verbose)', async () => {
    const refused = /^Error: could not connect to "unrenewable": the authorization server refused to renew its OAuth login at \d{4}-\d\d-\d\dT[\d:.]+Z \(revoked, or expired for good\), so the login was dropped\nHint: run `mcp-statechart login unrenewable`\n$/;
    expect((await loginAndBrowse('unrenewable', unrenewable)).code).toBe(0);
    unrenewable.expireAccessTokens();
    const expired = await runCli(['--config', config, 'load', 'unrenewable'], { cwd: home, env: { HOME: home } });
    expect(expired.code).toBe(1);
    // The process that saw the refusal says what the next one says.
    expect(expired.stderr).toMatch(refused);
    const next = await runCli(['--config', config, 'load', 'unrenewable'], { cwd: home, env: { HOME: home } });
    expect(next.stderr).toBe(expired.stderr);

    expect((await loginAndBrowse('unrenewable', unrenewable)).code).toBe(0);
    unrenewable.expireAccessTokens();
    const called = await runCli(['--config', config, 'call', 'unrenewable', 'add', '{"a":1,"b":2}'], { cwd: home, env: { HOME: home } });
    expect(called.code).toBe(1);
    expect(called.stderr).toMatch(refused);

    expect((await loginAndBrowse('unrenewable', unrenewable)).code).toBe(0);
    unrenewable.expireAccessTokens();
    const verbose = await runCli(['--config', config, '--verbose', 'load', 'unrenewable'], { cwd: home, env: { HOME: home } });
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/^\[debug\] \[mcp-sdk\] OAuth "invalid_grant"/m);
    expect(verbose.stderr).toMatch(/^Hint: run `mcp-statechart login unrenewable`$/m);
    for (const token of unrenewable.issuedTokens) expect(expired.stdout + expired.stderr + called.stdout + called.stderr + verbose.stdout + verbose.stderr).not.toContain(token);
  }, 120_000);

  it('an entry pinned to another issuer than the server names: login says to check "oauth.issuer", not to run login again', async () => {
    const run = await runCli(['--config', config, 'login', 'pinned', '--no-browser'], { cwd: home, env: { HOME: home } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: could not log in to MCP server "pinned": it names another authorization server than the one its "oauth.issuer" pins/);
    expect(run.stderr).toContain('"oauth.issuer"');
    expect(run.stderr).not.toContain('mcp-statechart login pinned');
    expect(run.stderr).not.toContain(PINNED_SECRET);
  });

  it('Ctrl-C while the login waits for the browser: "Cancelled", no tokens stored, and exit 130 as after every command', async () => {
    const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, '--config', config, 'login', 'interrupted', '--no-browser'], {
      cwd: home,
      env: { ...process.env, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('open the URL above by hand')) resolve();
      }),
    );
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('Cancelled: you are not logged in to "interrupted".');
    const stored = join(home, '.ai-zen', 'mcp-oauth', 'interrupted.json');
    expect(existsSync(stored) ? JSON.parse(readFileSync(stored, 'utf8')).tokens : undefined).toBeUndefined();
  });

  it('refuses an unknown server and a stdio server with a clear message', async () => {
    const [unknown, local] = await Promise.all([
      runCli(['--config', config, 'login', 'ghost'], { cwd: home, env: { HOME: home } }),
      runCli(['--config', config, 'login', 'local'], { cwd: home, env: { HOME: home } }),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Error: there is no server named "ghost" \(configured: .*\blocal\b.*\)\nHint: run `mcp-statechart servers` to see every configured server/);
    expect(local.code).toBe(1);
    expect(local.stderr).toMatch(/runs over stdio: there is nothing to log in to/);
  });

  it('logout refuses an unknown server and a stdio server as login does, and says an http server has no stored login', async () => {
    const logout = (name: string) => runCli(['--config', config, 'logout', name], { cwd: home, env: { HOME: home } });
    const [unknown, local, http] = await Promise.all([logout('ghost'), logout('local'), logout('keyed')]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: there is no server named "ghost" \(configured: .*\blocal\b.*\)\nHint: run `mcp-statechart servers` to see every configured server\n$/);
    expect(local.code).toBe(1);
    expect(local.stderr).toBe('MCP server "local" runs over stdio: there is no login to forget.\n');
    expect({ code: http.code, stderr: http.stderr }).toEqual({ code: 0, stderr: 'No stored login for "keyed".\n' });
  });

  it('login and logout quote a name with a line break on one line: a config cannot forge a line of theirs', async () => {
    const forging = join(home, 'forging.json');
    const line = '\nLogged in to "remote". Stored in /tmp/x';
    writeFileSync(forging, JSON.stringify({ mcpServers: { [`local${line}`]: stdioFixture(), [`web${line}`]: { url: fixture.url } } }));
    const dir = join(home, '.ai-zen', 'mcp-oauth');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, loginFileName(`gone${line}`)), '{}', { mode: 0o600 });
    const run = (...args: string[]) => runCli(['--config', forging, ...args], { cwd: home, env: { HOME: home } });
    const [login, stdio, http, gone] = await Promise.all([run('login', `local${line}`), run('logout', `local${line}`), run('logout', `web${line}`), run('logout', `gone${line}`)]);
    const escaped = '\\x0aLogged in to "remote". Stored in /tmp/x"';
    expect(login.stderr).toBe(`MCP server "local${escaped} runs over stdio: there is nothing to log in to.\n`);
    expect(stdio.stderr).toBe(`MCP server "local${escaped} runs over stdio: there is no login to forget.\n`);
    expect(http.stderr).toBe(`No stored login for "web${escaped}.\n`);
    expect(gone.stderr).toMatch(/^Logged out of "gone\\x0aLogged in to "remote"\. Stored in \/tmp\/x" \(.*\.json deleted\)\.\n$/);
   }, 60_000);

  it('logout forgets a login stored under a name no longer configured', async () => {
    const dir = join(home, '.ai-zen', 'mcp-oauth');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'removed-since.json'), '{}', { mode: 0o600 });
    const run = await runCli(['logout', 'removed-since'], { cwd: home, env: { HOME: home } });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^Logged out of "removed-since"/);
    expect(existsSync(join(dir, 'removed-since.json'))).toBe(false);
  });

  it('a server that refuses the Authorization header an entry sends: the hint points to that header, not to login, which refuses such an entry', async () => {
    const refused = await runCli(['--config', config, 'load', 'keyed'], { cwd: home, env: { HOME: home } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/HTTP 401/);
    expect(refused.stderr).toContain(
      `Hint: the server refused the "Authorization" header the entry sends: check it in "headers" in ${config}, or remove it to log in with \`mcp-statechart login keyed\`\n`,
    );
    expect(refused.stderr).not.toContain(WRONG_KEY);
    const login = await runCli(['--config', config, 'login', 'keyed', '--no-browser'], { cwd: home, env: { HOME: home } });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('the entry sends its own "Authorization" header; remove it to use an OAuth login');
  });
});

import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { createLoaderTools, McpConnectionManager } from '../src/index.js';
import { createGatewayLoaderTools, createServeLoaderTools } from '../src/tools/create-loader-tools.js';
import type { McpServerEntry } from '../machines/types.js';
import { isOAuthLoginRequired, login, logout, OAuthTokenStore } from '../src/entries/oauth.js';
import { openInBrowser } from '../src/auth/open-browser.js';
import { MAX_IGNORED_RESPONSES } from '../src/auth/loopback.js';
import { afterThisTest, loginDir, oauthFixture, recordingLogger } from './fixtures/oauth-helpers.js';
import { listen } from './fixtures/hostile-http.js';
import { rejectionOf } from './support/fixtures.js';

// The browser opener is checked for what it would run; no browser starts during tests.
const spawned = vi.hoisted(() => [] as Array<{ command: string; args: string[]; options: Record<string, unknown> }>);
vi.mock('node:child_process', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:child_process')>();
  return {
    ...real,
    spawn: (command: string, args: string[], options: Record<string, unknown>) => {
      spawned.push({ command, args, options });
      // Started, as a real opener is: its `spawn` event comes after spawn() returns.
      return { on: (event: string, listener: () => void) => void (event === 'spawn' && setImmediate(listener)), unref: () => {} };
    },
  };
});

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

function manager(dir: string) {
  const { logger, lines } = recordingLogger();
  const instance = new McpConnectionManager({ logger, oauth: { dir } });
  afterThisTest(() => instance.dispose());
  return { manager: instance, lines };
}

describe('login and the stored login', () => {
  it('stores tokens in a 0600 file inside a 0700 folder, and a connect uses them', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const printed: string[] = [];
    const before = Date.now();
    const result = await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: (line) => printed.push(line) });

    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(result.file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(result.file, 'utf8')) as { tokens: { access_token: string }; serverUrl: string; tokensExpireAt: number };
    expect(fixture.issuedTokens).toContain(stored.tokens.access_token);
    expect(stored.serverUrl).toBe(fixture.url);
    // The token says it lasts 3600 s (expires_in); when that ends is kept beside it, for `get`.
    expect(stored.tokensExpireAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(stored.tokensExpireAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect(result).toMatchObject({ server: 'remote', scope: 'mcp:read', authorizations: 1 });
    expect(printed.join('\n')).toContain('/authorize?');

    // The authorization request: a registered client, PKCE S256, the loopback redirect.
    expect(fixture.registrations).toHaveLength(1);
    expect(fixture.authorizations[0]?.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(fixture.tokenRequests.map((request) => request.grantType)).toEqual(['authorization_code']);

    const { manager: connected } = manager(dir);
    await connected.connect('remote', { url: fixture.url });
    expect(textOf(await connected.callTool('remote', 'echo', { text: 'with a token' }))).toBe('with a token');
  });

  it('never prints a token: not in the lines for the user, the log, or error messages', async () => {
    const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'tools/call': ['mcp:read', 'mcp:write'] } });
    const dir = loginDir();
    const printed: string[] = [];
    await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: (line) => printed.push(line) });
    const { manager: connected, lines } = manager(dir);
    await connected.connect('remote', { url: fixture.url });
    fixture.expireAccessTokens();
    const stepUp = await rejectionOf(connected.callTool('remote', 'echo', { text: 'more scope' }));
    await connected.disconnect('remote');
    await logout('remote', { dir });
    const noLogin = await rejectionOf(connected.connect('remote', { url: fixture.url }));

    const everything = [...printed, ...lines, stepUp.message, String(stepUp.cause), noLogin.message, String(noLogin.cause)].join('\n');
    expect(fixture.issuedTokens.length).toBeGreaterThanOrEqual(4);
    for (const token of fixture.issuedTokens) expect(everything).not.toContain(token);
  });

  it('logout deletes the file; the next connect fails at once as a config error that says to log in', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const { file } = await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
    expect(await logout('remote', { dir })).toEqual({ server: 'remote', file, removed: true });
    expect(() => statSync(file)).toThrow();
    expect(await logout('remote', { dir })).toMatchObject({ removed: false });

    const { manager: connected } = manager(dir);
    const requestsBefore = fixture.mcpRequests.length;
    const error = await rejectionOf(connected.connect('remote', { url: fixture.url }, { maxRetries: 3 }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'remote' });
    expect(error.message).toContain('run `mcp-statechart login remote`');
    expect(isOAuthLoginRequired(error)).toBe(true);
    expect(connected.getState('remote')).toBe('error');
    // One refused request (the era probe, server/discover, comes first), no retry, and the manager
    // itself never starts an authorization.
    expect(fixture.mcpRequests.slice(requestsBefore)).toEqual([{ method: 'server/discover', status: 401 }]);
    expect(fixture.authorizations).toHaveLength(1);
  });

  it('ignores a callback whose state is not the one it sent, and logs in with the real one that follows', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    let page = { status: 0, text: '' };
    // Another local process, or a web page the user has open, reaches the loopback redirect first.
    const forgedFirst = async (url: URL) => {
      const response = await fetch(url, { redirect: 'manual' });
      const callback = new URL(response.headers.get('location') ?? '');
      callback.searchParams.set('state', 'forged');
      const forged = await fetch(callback);
      page = { status: forged.status, text: await forged.text() };
      await fixture.browse(url);
    };
    const result = await login('remote', { url: fixture.url }, { dir, openBrowser: forgedFirst, print: () => {} });
    expect(result.authorizations).toBe(1);
    // The forged code was never redeemed: one exchange, the real browser's.
    expect(fixture.tokenRequests).toHaveLength(1);
    expect(fixture.issuedTokens).toContain(new OAuthTokenStore('remote', dir).read().tokens?.access_token);
    // Whoever sent it is told it was ignored, not that it was received.
    expect(page.status).toBe(400);
    expect(page.text).toContain('ignored');
    expect(page.text).not.toContain('Authorization received');
    expect(fixture.callbackPages).toEqual([{ status: 200, text: expect.stringContaining('Authorization received') }]);
  });

  it('ignores an error response without the state it sent, and shows the text of that error nowhere', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const printed: string[] = [];
    let page = '';
    const forgedFirst = async (url: URL) => {
      const callback = new URL(url.searchParams.get('redirect_uri') ?? '');
      callback.searchParams.set('error', 'access_denied');
      callback.searchParams.set('error_description', 'Your account is locked: call +1 555 0100 \u202Eexe.');
      page = await (await fetch(callback)).text();
      await fixture.browse(url);
    };
    await login('remote', { url: fixture.url }, { dir, openBrowser: forgedFirst, print: (line) => printed.push(line) });
    expect(new OAuthTokenStore('remote', dir).read().tokens).toBeDefined();
    expect(page).toContain('ignored');
    expect(printed.join('\n')).not.toContain('locked');
  });

  it(`gives up, saying why, after ${MAX_IGNORED_RESPONSES} callbacks without its state`, async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const statuses: number[] = [];
    const flood = async (url: URL) => {
      const callback = new URL(url.searchParams.get('redirect_uri') ?? '');
      callback.searchParams.set('code', 'forged');
      for (let sent = 0; sent < MAX_IGNORED_RESPONSES; sent++) statuses.push((await fetch(callback)).status);
    };
    const error = await rejectionOf(login('remote', { url: fixture.url }, { dir, openBrowser: flood, print: () => {} }));
    expect(error.message).toContain(`${MAX_IGNORED_RESPONSES} authorization responses without this login's "state"`);
    expect(error.message).toContain('run the login again');
    expect(statuses).toEqual(Array<number>(MAX_IGNORED_RESPONSES).fill(400));
    expect(fixture.tokenRequests).toHaveLength(0);
    expect(new OAuthTokenStore('remote', dir).read().tokens).toBeUndefined();
  });

  it("quotes the authorization server's own error text: control characters escaped, a long one cut", async () => {
    const description = `Your account is locked \u202Eexe.\x9b31m ${'x'.repeat(5_000)}`;
    const fixture = await oauthFixture({ authorizationError: { error: 'access_denied', description } });
    const error = await rejectionOf(login('remote', { url: fixture.url }, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} }));
    expect(error.message).toContain('the authorization server refused: "access_denied" ("Your account is locked \\u{202e}exe.\\x9b31m x');
    expect(error.message).toContain(`(${description.length.toLocaleString('en-US')} characters)`);
    expect(error.message).not.toMatch(/[\u202E\x9b]/);
    expect(error.message.length).toBeLessThan(400);
  });

  it("follows no redirect to another origin with the entry's headers, and says where the server pointed", async () => {
    const reached: Array<string | undefined> = [];
    const other = await listen((request, response) => {
      reached.push(request.headers['x-api-key'] as string | undefined);
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    const redirecting = await listen((_request, response) => response.writeHead(307, { location: `${other.url}?sig=signed-value` }).end());
    afterThisTest(() => Promise.all([other.close(), redirecting.close()]).then(() => {}));
    const config = { url: redirecting.url, headers: { 'X-Api-Key': 'key-for-the-entry-url' } };

    const error = await rejectionOf(login('remote', config, { dir: loginDir(), openBrowser: false, print: () => {} }));
    expect(reached).not.toContain('key-for-the-entry-url');
    expect(error.message).toContain(`a redirect to "${other.url}?sig=[redacted]"`);
    expect(error.message).toContain('use its URL as the entry\'s "url"');
  });

  it('a cancelled login (Ctrl-C) ends while a request to a silent server is pending, not only while it waits for the browser', async () => {
    let metadataAsked!: () => void;
    const asked = new Promise<void>((resolve) => (metadataAsked = resolve));
    const server = await listen((request, response) => {
      if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname === '/mcp') {
        return void response.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${new URL('/metadata', server.url).href}"` }).end();
      }
      // Every other request (the metadata) is never answered.
      metadataAsked();
    });
    afterThisTest(() => server.close());
    const cancel = new AbortController();

    const ended = rejectionOf(login('remote', { url: server.url }, { dir: loginDir(), signal: cancel.signal, openBrowser: false, print: () => {} }));
    await asked;
    cancel.abort();
    expect((await ended).message).toBe('the login was cancelled');
  });

  it('a login cancelled while its browser opener runs ends then, not at the end of its 5-minute wait for the browser', async () => {
    const fixture = await oauthFixture();
    const cancel = new AbortController();
    // A program's opener (a prompt, a window) during which the user cancels; no browser comes back.
    const cancelWhileOpening = () => cancel.abort();

    const error = await rejectionOf(login('remote', { url: fixture.url }, { dir: loginDir(), signal: cancel.signal, openBrowser: cancelWhileOpening, print: () => {} }));
    expect(error.message).toBe('the login was cancelled');
    expect(fixture.tokenRequests).toHaveLength(0);
  });

  it('uses a pre-registered client from the entry: no registration, its secret sent with Basic, its scopes asked for', async () => {
    const fixture = await oauthFixture({ dynamicRegistration: false, clients: [{ client_id: 'pre-registered', client_secret: 'pre-registered-secret' }] });
    const dir = loginDir();
    const config = { url: fixture.url, oauth: { clientId: 'pre-registered', clientSecret: 'pre-registered-secret', scopes: ['mcp:read', 'profile'] } };
    await login('remote', config, { dir, openBrowser: fixture.browse, print: () => {} });
    expect(fixture.registrations).toHaveLength(0);
    expect(fixture.authorizations[0]).toMatchObject({ clientId: 'pre-registered', scope: 'mcp:read profile' });
    expect(fixture.tokenRequests[0]).toEqual({ grantType: 'authorization_code', clientAuth: 'basic' });
    // The secret stays in the config; the file holds no client of its own.
    expect(readFileSync(new OAuthTokenStore('remote', dir).file, 'utf8')).not.toContain('pre-registered-secret');
  });

  it('reports an invalid "oauth" field as a config error naming it', async () => {
    const fixture = await oauthFixture();
    const { manager: connected } = manager(loginDir());
    // As a file may write it: the types refuse the misspelt `clientID`.
    const error = await rejectionOf(connected.connect('remote', { url: fixture.url, oauth: { clientID: 'typo', clientSecret: 'a-secret-value' } } as McpServerEntry));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR' });
    expect(error.message).toContain('"clientID"');
    expect(error.message).not.toContain('a-secret-value');
  });

  it('leaves OAuth out for an entry with its own Authorization header, or "oauth": false', async () => {
    const fixture = await oauthFixture();
    const { manager: connected } = manager(loginDir());
    for (const config of [{ url: fixture.url, headers: { Authorization: 'Bearer static-token-value' } }, { url: fixture.url, oauth: false }]) {
      const error = await rejectionOf(connected.connect('remote', config));
      expect(error.message).toMatch(/invalid_token.*refused the credentials: check the entry's "headers"/);
      expect(isOAuthLoginRequired(error)).toBe(false);
    }
  });
});

describe('what the model is told about a server that needs a login', () => {
  it('load_mcp says the user has to log in, and a load after the login connects', async () => {
    const fixture = await oauthFixture();
    const dir = loginDir();
    const { manager: connected } = manager(dir);
    const tools = createLoaderTools({ manager: connected, servers: { remote: { url: fixture.url } } });
    const load = tools.find((tool) => tool.name === 'load_mcp');

    const refused = await load?.execute({ server: 'remote' });
    expect(refused?.isError).toBe(true);
    expect(refused?.text).toContain('run `mcp-statechart login remote`');
    // Not "fix the entry": nothing in it is wrong, and loading again works once the user logged in.
    expect(refused?.text).toContain('What you can do: the server needs the user to log in');
    expect(refused?.text).toContain('then call load_mcp again');
    expect(refused?.text).not.toContain('fix the entry');
    // No login was stored, so no credentials were sent for the server to refuse.
    expect(refused?.text).toContain('No credentials were sent; it will not be retried until a login is stored.');
    expect(refused?.text).not.toContain('refused the credentials');

    await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
    expect(await load?.execute({ server: 'remote' })).toMatchObject({ isError: false });
  });

  it.each([
    ['serve over stdio', createServeLoaderTools, /which you cannot make: tell the user to sign in by running `mcp-statechart login remote` in a terminal on the machine mcp-statechart serve runs on/],
    ['a serve --http gateway', createGatewayLoaderTools, /only the operator of this MCP gateway can make, on the gateway's own machine \(neither you nor the user can do it from here\): tell the user to ask the gateway's operator to sign in to MCP server "remote"/],
  ])("through %s, the model is not told to run the login command itself: it is told who can log in", async (_surface, create, step) => {
    const fixture = await oauthFixture();
    const { manager: connected } = manager(loginDir());
    const tools = create({ manager: connected, servers: { remote: { url: fixture.url } } });

    const refused = await tools.find((tool) => tool.name === 'load_mcp')?.execute({ server: 'remote' });
    expect(refused?.isError).toBe(true);
    const [errorLine, nextStep] = [refused?.text.match(/^Error: .*$/m)?.[0], refused?.text.match(/^What you can do: .*$/m)?.[0]];
    expect(errorLine).toContain('it needs an OAuth login and none is stored for it');
    expect(errorLine).not.toContain('mcp-statechart login');
    expect(nextStep).toMatch(step);
    // call_mcp_tool after the failed load says the same.
    const called = await tools.find((tool) => tool.name === 'call_mcp_tool')?.execute({ server: 'remote', tool: 'whoami', arguments: {} });
    expect(called?.text).toMatch(step);
    expect(called?.text).not.toContain('run `mcp-statechart login');
  });

  it.each([
    ['the library', createLoaderTools, /What you can do: the server needs the user to log in \(OAuth\)/, true],
    ['serve over stdio', createServeLoaderTools, /What you can do: .*tell the user to sign in by running `mcp-statechart login remote` in a terminal on the machine mcp-statechart serve runs on/, false],
    ['a serve --http gateway', createGatewayLoaderTools, /What you can do: .*tell the user to ask the gateway's operator to sign in to MCP server "remote"/, false],
  ])('through %s, a call whose login expires mid-session and cannot be renewed says who can log in, as load_mcp does', async (_surface, create, step, commandInError) => {
    const fixture = await oauthFixture({ refresh: 'fail' });
    const dir = loginDir();
    await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
    const { manager: connected } = manager(dir);
    const tools = create({ manager: connected, servers: { remote: { url: fixture.url } } });
    expect(await tools.find((tool) => tool.name === 'load_mcp')?.execute({ server: 'remote' })).toMatchObject({ isError: false });
    fixture.expireAccessTokens();

    const called = await tools.find((tool) => tool.name === 'call_mcp_tool')?.execute({ server: 'remote', tool: 'add', arguments: { a: 1, b: 2 } });
    expect(called?.isError).toBe(true);
    expect(called?.text).toContain('the authorization server refused to renew its OAuth login at ');
    expect(called?.text).toMatch(step);
    // The command in the error is for the library's own user; through serve it is said once, for whoever can run it.
    expect(called?.text.includes('; run `mcp-statechart login remote`')).toBe(commandInError);
  });
});

describe('opening the browser', () => {
  it('runs xdg-open/open with the URL as one argument and no shell, for http(s) URLs only', async () => {
    spawned.length = 0;
    expect(await openInBrowser(new URL('file:///etc/passwd'))).toBe(false);
    expect(await openInBrowser(new URL('javascript:alert(1)'))).toBe(false);
    expect(spawned).toHaveLength(0);

    const url = new URL('https://auth.example/authorize?state=a;b&scope=x y');
    expect(await openInBrowser(url)).toBe(process.platform !== 'win32');
    if (process.platform === 'win32') return;
    expect(spawned).toEqual([{ command: process.platform === 'darwin' ? 'open' : 'xdg-open', args: [url.href], options: expect.objectContaining({ shell: false }) }]);
  });

  it('login prints the URL and opens it when openBrowser is true', async () => {
    spawned.length = 0;
    const fixture = await oauthFixture();
    const printed: string[] = [];
    const controller = new AbortController();
    const pending = login('remote', { url: fixture.url }, { dir: loginDir(), print: (line) => printed.push(line), signal: controller.signal });
    await vi.waitFor(() => expect(printed).toContain('(Opening it in your browser.)'));
    expect(spawned).toHaveLength(1);
    const opened = new URL(spawned[0]!.args[0]!);
    expect(printed.join('\n')).toContain(opened.href);
    // Nobody comes back in this test: cancelling ends the wait.
    controller.abort();
    await expect(pending).rejects.toThrow(/cancelled/);
  });
});

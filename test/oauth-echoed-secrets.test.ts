import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLoaderTools, McpConnectionManager } from '../src/index.js';
import { login, OAuthTokenStore } from '../src/entries/oauth.js';
import { redactingSentSecrets } from '../src/auth/sent-secrets.js';
import { afterThisTest, loginDir, oauthFixture, recordingLogger } from './fixtures/oauth-helpers.js';
import { listen } from './fixtures/hostile-http.js';
import { rejectionOf } from './support/fixtures.js';
import { MAX_ERROR_BODY_BYTES } from '../src/transports/message-size.js';
import { bodyMadeAsRead } from './support/endless-body.js';

// An authorization server that echoes the token request in its error answer, every way it may spell it.
function echo(form: URLSearchParams, authorization: string | undefined): string {
  const basic = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
  const decoded = basic ? Buffer.from(basic, 'base64').toString() : '';
  return `echo: ${form.toString()} | ${[...form.values()].join(' ')} | ${authorization ?? ''} ${decoded} ${decodeURIComponent(decoded)}`;
}

/** What this process sent that only it and the authorization server may know. */
function secretsIn(form: URLSearchParams, authorization: string | undefined): string[] {
  const fields = ['code', 'code_verifier', 'client_secret', 'refresh_token'].flatMap((field) => form.get(field) ?? []);
  return authorization ? [...fields, authorization.replace(/^Basic /, '')] : fields;
}

/** A login an earlier `login` stored for server "remote", valid for an hour. */
function storeLogin(dir: string, serverUrl: string, accessToken: string): void {
  new OAuthTokenStore('remote', dir).write({ serverUrl, tokens: { access_token: accessToken, token_type: 'Bearer' }, tokensExpireAt: Date.now() + 3_600_000 });
}

/** Answers a JSON-RPC request with its method's result, or "method not found". */
function answerFrom(results: Record<string, object>, message: { id: unknown; method: string }, response: ServerResponse): void {
  const result = results[message.method];
  const answer = result ? { result } : { error: { code: -32601, message: 'method not found' } };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer }));
}

const SECRET = 'pre-registered-secret';
const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {});
afterEach(() => warnings.mockClear());

describe('an authorization server that echoes the request in its error', () => {
  it('login: the error shows none of the code, the PKCE verifier or the client secret', async () => {
    const sent: string[] = [SECRET];
    const fixture = await oauthFixture({
      dynamicRegistration: false,
      clients: [{ client_id: 'pre-registered', client_secret: SECRET }],
      tokenAnswer: (form, authorization) => {
        sent.push(...secretsIn(form, authorization));
        return { status: 400, body: JSON.stringify({ error: 'invalid_grant', error_description: echo(form, authorization) }) };
      },
    });
    const config = { url: fixture.url, oauth: { clientId: 'pre-registered', clientSecret: SECRET } };
    const error = await rejectionOf(login('remote', config, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} }));

    const shown = [error.message, String(error.cause), ...warnings.mock.calls.flat().map(String)].join('\n');
    expect(shown).toContain('echo: grant_type=authorization_code');
    expect(shown).toContain('[redacted]');
    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (const value of sent) expect(shown).not.toContain(value);
  });

  it('refresh: neither load_mcp, the log nor the error shows the refresh token, even in a body that is not JSON', async () => {
    const sent: string[] = [];
    let echoing = false;
    const fixture = await oauthFixture({
      tokenAnswer: (form, authorization) => {
        if (!echoing) return undefined;
        sent.push(...secretsIn(form, authorization));
        return { status: 500, body: `<html>could not refresh ${echo(form, authorization)}</html>` };
      },
    });
    const dir = loginDir();
    await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
    echoing = true;
    fixture.expireAccessTokens();
    const { logger, lines } = recordingLogger();
    const manager = new McpConnectionManager({ logger, oauth: { dir } });
    afterThisTest(() => manager.dispose());
    const load = createLoaderTools({ manager, servers: { remote: { url: fixture.url } } }).find((tool) => tool.name === 'load_mcp');

    const loaded = await load?.execute({ server: 'remote' });
    const error = await rejectionOf(manager.connect('remote', { url: fixture.url }));

    const shown = [loaded?.text, error.message, String(error.cause), ...lines, ...warnings.mock.calls.flat().map(String)].join('\n');
    expect(loaded?.isError).toBe(true);
    expect(sent.some((value) => value.length > 0)).toBe(true);
    for (const value of sent) expect(shown).not.toContain(value);
  });
});

describe('an MCP server that echoes the request in its error', () => {
  it("neither load_mcp, the error nor the log shows the login's access token", async () => {
    const accessToken = 'at_stored-by-an-earlier-login-0123456789';
    const server = await listen((request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(`cannot serve the request with Authorization: ${request.headers.authorization}`);
    });
    afterThisTest(() => server.close());
    const dir = loginDir();
    storeLogin(dir, server.url, accessToken);
    const { logger, lines } = recordingLogger();
    const manager = new McpConnectionManager({ logger, oauth: { dir }, defaults: { maxRetries: 0 } });
    afterThisTest(() => manager.dispose());
    const load = createLoaderTools({ manager, servers: { remote: { url: server.url } } }).find((tool) => tool.name === 'load_mcp');

    const answer = await load?.execute({ server: 'remote' });
    const shown = [answer?.text, manager.getError('remote')?.message, ...lines].join('\n');
    expect(shown).toContain('cannot serve the request with Authorization: Bearer [redacted]');
    expect(shown).not.toContain(accessToken);
  });
});

describe('an MCP server that repeats the access token in a successful answer', () => {
  it("neither a tool result nor a resource read shows the login's access token", async () => {
    const accessToken = 'at_stored-by-an-earlier-login-0123456789';
    // A careless "whoami": its tool and its resource answer with the request's own Authorization header.
    const server = await listen((request, response, body) => {
      if (request.method !== 'POST') return void response.writeHead(405).end();
      const message = JSON.parse(body);
      if (message.id === undefined) return void response.writeHead(202).end();
      const echoed = `you sent Authorization: ${request.headers.authorization}`;
      const results: Record<string, object> = {
        initialize: { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {}, resources: {} }, serverInfo: { name: 'whoami', version: '1' } },
        'tools/list': { tools: [{ name: 'whoami', inputSchema: { type: 'object' } }] },
        'tools/call': { content: [{ type: 'text', text: echoed }] },
        'resources/list': { resources: [] },
        'resources/templates/list': { resourceTemplates: [] },
        'resources/read': { contents: [{ uri: 'test://whoami', text: echoed }] },
      };
      answerFrom(results, message, response);
    });
    afterThisTest(() => server.close());
    const dir = loginDir();
    storeLogin(dir, server.url, accessToken);
    const manager = new McpConnectionManager({ oauth: { dir }, defaults: { maxRetries: 0 } });
    afterThisTest(() => manager.dispose());
    await manager.connect('remote', { url: server.url });

    const called = await manager.callTool('remote', 'whoami', {});
    const read = await manager.readResource('remote', 'test://whoami');
    expect(called.content).toEqual([{ type: 'text', text: 'you sent Authorization: Bearer [redacted]' }]);
    expect(read.contents).toEqual([{ uri: 'test://whoami', text: 'you sent Authorization: Bearer [redacted]' }]);
  });
});

describe('an MCP server that repeats the access token in its tool list, its notifications and its questions', () => {
  it("neither its tool's description, its log message, its progress message nor its elicitation's text shows the login's access token", async () => {
    const accessToken = 'at_stored-by-an-earlier-login-0123456789';
    let answerTheCall: (() => void) | undefined;
    // A careless server: it describes its tool, and during a call logs, reports progress and asks the user, each quoting the request's Authorization header.
    const server = await listen((request, response, body) => {
      if (request.method !== 'POST') return void response.writeHead(405).end();
      const message = JSON.parse(body);
      if (message.id === 'ask') {
        response.writeHead(202).end();
        return answerTheCall?.();
      }
      if (message.id === undefined) return void response.writeHead(202).end();
      const echoed = `you sent Authorization: ${request.headers.authorization}`;
      const send = (payload: object) => response.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...payload })}\n\n`);
      if (message.method === 'tools/call') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        send({ method: 'notifications/message', params: { level: 'info', logger: echoed, data: { note: echoed } } });
        send({ method: 'notifications/progress', params: { progressToken: message.params._meta.progressToken, progress: 1, message: echoed } });
        send({ id: 'ask', method: 'elicitation/create', params: { message: echoed, requestedSchema: { type: 'object', properties: {} } } });
        answerTheCall = () => {
          send({ id: message.id, result: { content: [{ type: 'text', text: 'done' }] } });
          response.end();
        };
        return;
      }
      const results: Record<string, object> = {
        initialize: { protocolVersion: '2025-06-18', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'careless', version: '1' } },
        'tools/list': { tools: [{ name: 'whoami', description: echoed, inputSchema: { type: 'object' } }] },
      };
      answerFrom(results, message, response);
    });
    afterThisTest(() => server.close());
    const dir = loginDir();
    storeLogin(dir, server.url, accessToken);
    const logged: unknown[] = [];
    const asked: string[] = [];
    const progress: unknown[] = [];
    const manager = new McpConnectionManager({
      oauth: { dir },
      defaults: { maxRetries: 0 },
      handlers: {
        logging: (message) => void logged.push(message),
        elicitation: (params) => {
          asked.push(params.message);
          return { action: 'decline' };
        },
      },
    });
    manager.on('mcp.log', (message) => logged.push(message));
    afterThisTest(() => manager.dispose());
    await manager.connect('remote', { url: server.url });

    const called = await manager.callTool('remote', 'whoami', {}, { onProgress: (update) => void progress.push(update) });

    const shown = 'you sent Authorization: Bearer [redacted]';
    expect(called.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(manager.getManifest('remote')?.tools.map((tool) => tool.description)).toEqual([shown]);
    expect(logged).toHaveLength(2);
    for (const message of logged) expect(message).toMatchObject({ server: 'remote', level: 'info', logger: shown, data: { note: shown } });
    expect(progress).toEqual([expect.objectContaining({ progress: 1, message: shown })]);
    expect(asked).toEqual([shown]);
    expect(JSON.stringify([manager.getManifest('remote'), logged, progress, asked])).not.toContain(accessToken);
  });
});

describe('a value sent that is only a character or two long', () => {
  async function loginEchoing(clientSecret: string, description: (form: URLSearchParams) => string): Promise<string> {
    const fixture = await oauthFixture({
      dynamicRegistration: false,
      clients: [{ client_id: 'c', client_secret: clientSecret }],
      tokenAnswer: (form) => ({ status: 400, body: JSON.stringify({ error: 'invalid_grant', error_description: description(form) }) }),
    });
    const config = { url: fixture.url, oauth: { clientId: 'c', clientSecret } };
    const error = await rejectionOf(login('remote', config, { dir: loginDir(), openBrowser: fixture.browse, print: () => {} }));
    return error.message;
  }

  it('is redacted where it stands alone, and the letters of other words are left as they are', async () => {
    const shown = await loginEchoing('e', () => 'the request sent the secret "e" (client_secret=e); see the help page');
    expect(shown).toContain('the request sent the secret "[redacted]" (client_secret=[redacted]); see the help page');
  });

  it('is redacted however it is spelled alone: percent-encoded, or beside the code and verifier it came with', async () => {
    const sent: string[] = [];
    const shown = await loginEchoing('a+', (form) => {
      const these = [form.get('code') ?? '', form.get('code_verifier') ?? ''];
      sent.push(...these);
      return `refused ${encodeURIComponent('a+')}, a+ and ${these.join(' ')} as a client's secret`;
    });
    expect(shown).toContain("refused [redacted], [redacted] and [redacted] [redacted] as a client's secret");
    for (const value of sent) expect(shown).not.toContain(value);
  });
});

describe('an authorization server whose error answer does not end', () => {
  it('is read only as far as an error is shown (twice MAX_ERROR_BODY_BYTES), the rest never downloaded', async () => {
    // 64 MiB of error text, made as it is read.
    const endless = bodyMadeAsRead(64 * 1024, 64 * 1024 * 1024);
    const hostile = async () => new Response(endless.body, { status: 400 });
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: 'the-code', code_verifier: 'the-verifier' });

    const answer = await redactingSentSecrets(hostile)('http://127.0.0.1:1/token', { method: 'POST', body: form });

    expect(answer.status).toBe(400);
    expect((await answer.text()).length).toBe(2 * MAX_ERROR_BODY_BYTES);
    // A stream pulls one chunk ahead of its reader.
    expect(endless.pulled()).toBeLessThanOrEqual(2 * MAX_ERROR_BODY_BYTES + 2 * endless.chunkBytes);
  });
});


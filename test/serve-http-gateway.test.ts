/**
 * `serve --http --gateway <file>`: who may call, and what each identity sees. Without a valid
 * token (none, a wrong one, an expired or wrong-audience JWT) a request gets 401 with the
 * challenge naming the Protected Resource Metadata document, and nothing starts; a JWT from an
 * issuer on 127.0.0.1 is accepted. Per identity and group, on every path (load_mcp's list,
 * call_mcp_tool, read_mcp_resource, prompts, resources) what it may not reach is absent; a call
 * rate is enforced with a Retry-After the model reads; `--audit` writes a line per call and
 * never an argument. Real processes: serve, server-everything, server-memory.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from './support/everything.js';
import { gatewayTokenHash, startHttpServe, teamHost, type HttpServe } from './support/http-serve.js';
import { AUDIENCE, LocalIssuer, signingKey, type SigningKey } from './support/local-issuer.js';
import { referenceServers, type ReferenceServers } from './support/reference-servers.js';

const TOKENS = { alice: 'alice-token-5d1f', bob: 'bob-token-77a2', dora: 'dora-token-c3e9' };
const CANARY = 'canary-3f9a1c-never-in-the-audit-log';

let home: string;
let servers: ReferenceServers;
let issuer: LocalIssuer;
let key: SigningKey;
let auditFile: string;
let gateway: HttpServe;
/** The --health listener's (the operator's and the balancer's, never the hosts'). */
let healthOrigin: string;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-gateway-'));
  servers = referenceServers();
  issuer = new LocalIssuer();
  await issuer.start();
  key = await signingKey('key-1');
  issuer.published = [key];
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything, 'secret-notes': servers.memory } }));
  const gatewayFile = join(home, 'gateway.json');
  writeFileSync(
    gatewayFile,
    JSON.stringify({
      identities: {
        alice: { token: gatewayTokenHash(TOKENS.alice), allow: ['*'] },
        bob: { token: gatewayTokenHash(TOKENS.bob), deny: ['secret*'], denyTools: ['everything/get-sum'], callsPerMinute: 4 },
        dora: { token: gatewayTokenHash(TOKENS.dora), groups: ['readers'] },
      },
      groups: { readers: { allow: ['everything'], denyTools: ['everything/echo'] }, admins: { allow: ['*'] } },
      oauth: { issuer: issuer.url, audience: AUDIENCE, groupsClaim: 'groups' },
    }),
  );
  auditFile = join(home, 'audit.log');
  gateway = await startHttpServe(home, ['--config', config], ['--gateway', gatewayFile, '--audit', auditFile, '--health', '127.0.0.1:0']);
  healthOrigin = /health on (http:\/\/\S+)\/readyz/.exec(gateway.stderr())![1]!;
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
  await issuer?.stop();
  servers?.cleanup();
  rmSync(home, { recursive: true, force: true });
}, 60_000);

const hostWith = (token: string) => teamHost(gateway.url, token);

const health = async () => ((await (await fetch(`${healthOrigin}/healthz`)).json()) as { servers: Record<string, string[]> }).servers;

function loadEnum(tools: Array<{ name: string; inputSchema: unknown }>): string[] {
  const load = tools.find((tool) => tool.name === 'load_mcp');
  const schema = load?.inputSchema as { properties: { server: { enum?: string[] } } };
  return schema.properties.server.enum ?? [];
}

describe('inbound auth', () => {
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  const post = (authorization?: string) =>
    fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization && { authorization }) },
      body: initialize,
    });

  it('answers 401 with the challenge, and starts nothing, without a token, with a wrong one, or with a bad JWT', async () => {
    const expired = await issuer.token(key, { exp: Math.floor(Date.now() / 1000) - 120 });
    const wrongAudience = await issuer.token(key, { aud: 'https://elsewhere.example.com/mcp' });
    for (const authorization of [undefined, 'Bearer not-a-token-of-the-file', `Bearer ${expired}`, `Bearer ${wrongAudience}`]) {
      const answer = await post(authorization);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toContain('resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"');
    }
    const legacy = new LegacyClient({ name: 'anonymous', version: '1' });
    await expect(legacy.connect(new LegacyHttpTransport(new URL(gateway.url)))).rejects.toThrow(/no bearer token was sent/);
    expect((await health()).connected ?? []).toEqual([]);
  }, 30_000);

  it("answers /healthz on the calls' port, before auth, with counts by state and no server's name; names stay on the --health listener", async () => {
    const answer = await fetch(`${gateway.origin}/healthz`);
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual({ status: 'ok', serverCounts: { disconnected: 2 }, inFlight: 0, draining: false });
    // Bob's policy hides it: someone without a token must not learn it exists.
    expect(text).not.toContain('secret-notes');
    expect(await health()).toEqual({ disconnected: ['everything', 'secret-notes'] });
  });

  it('serves the Protected Resource Metadata document (RFC 9728)', async () => {
    const answer = await fetch(`${gateway.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual(expect.objectContaining({ resource: AUDIENCE, authorization_servers: [issuer.url] }));
  });

  it('accepts a JWT from the issuer, its groups giving it access', async () => {
    const host = await hostWith(await issuer.token(key, { sub: 'carol', groups: ['admins'] }));
    try {
      expect(loadEnum((await host.listTools()).tools)).toEqual(expect.arrayContaining(['everything', 'secret-notes']));
    } finally {
      await host.close();
    }
  }, 30_000);
});

describe('policy per identity and group: what an identity may not reach is absent', () => {
  it("leaves denied servers out of load_mcp's list and refuses calls and reads on them", async () => {
    const bob = await hostWith(TOKENS.bob);
    try {
      expect(loadEnum((await bob.listTools()).tools)).toEqual(['everything']);
      const call = await bob.callTool({ name: 'call_mcp_tool', arguments: { server: 'secret-notes', tool: 'read_graph', arguments: {} } });
      expect(call.isError).toBe(true);
      expect(textOf(call)).toContain('Servers you can use: everything.');
      const read = await bob.callTool({ name: 'read_mcp_resource', arguments: { server: 'secret-notes', uri: 'memory://graph' } });
      expect(read.isError).toBe(true);
    } finally {
      await bob.close();
    }
  }, 60_000);

  it("leaves denied tools out of what load_mcp shows, and refuses them, per identity and per group", async () => {
    const bob = await hostWith(TOKENS.bob);
    const dora = await hostWith(TOKENS.dora);
    try {
      const bobSees = textOf(await bob.callTool({ name: 'load_mcp', arguments: { server: 'everything' } }));
      expect(bobSees).toContain('echo');
      expect(bobSees).not.toContain('get-sum');
      const doraSees = textOf(await dora.callTool({ name: 'load_mcp', arguments: { server: 'everything' } }));
      expect(doraSees).toContain('get-sum');
      expect(doraSees).not.toContain('"echo"');
      const refused = await dora.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'echo', arguments: { message: 'x' } } });
      expect(refused.isError).toBe(true);
      const allowed = await dora.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'get-sum', arguments: { a: 1, b: 2 } } });
      expect(textOf(allowed)).toContain('3');
    } finally {
      await Promise.all([bob.close(), dora.close()]);
    }
  }, 60_000);

  it("never shows one identity's loaded secret server in another's prompts and resources", async () => {
    const alice = await hostWith(TOKENS.alice);
    const bob = await hostWith(TOKENS.bob);
    try {
      await alice.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
      await alice.callTool({ name: 'load_mcp', arguments: { server: 'secret-notes' } });
      const aliceResources = (await alice.listResources()).resources.map((resource) => resource.uri);
      const alicePrompts = (await alice.listPrompts()).prompts.map((prompt) => prompt.name);
      expect(aliceResources.some((uri) => uri.startsWith('mcp-statechart://everything/'))).toBe(true);
      expect(alicePrompts.some((name) => name.startsWith('everything/'))).toBe(true);
      const bobResources = (await bob.listResources()).resources.map((resource) => resource.uri);
      const bobPrompts = (await bob.listPrompts()).prompts.map((prompt) => prompt.name);
      expect(bobResources.some((uri) => uri.includes('secret-notes'))).toBe(false);
      expect(bobPrompts.some((name) => name.startsWith('secret-notes/'))).toBe(false);
      expect(bobResources.length).toBeGreaterThan(0);
      await expect(bob.getPrompt({ name: 'secret-notes/anything' })).rejects.toThrow(/Unknown prompt/);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  }, 60_000);
});

describe('rate limit and audit', () => {
  it('refuses calls over the identity’s rate with a Retry-After the model reads', async () => {
    const bob = await hostWith(TOKENS.bob);
    try {
      const results = [];
      for (let call = 0; call < 6; call++) {
        results.push(await bob.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'echo', arguments: { message: `n${call}` } } }));
      }
      const limited = results.filter((result) => textOf(result).startsWith('Rate limit'));
      expect(limited.length).toBeGreaterThan(0);
      expect(limited[0]?.isError).toBe(true);
      expect(textOf(limited[0] ?? {})).toMatch(/Retry after \d+ s/);
    } finally {
      await bob.close();
    }
  }, 60_000);

  it('writes one line per call with identity, server, tool and outcome, and never an argument', async () => {
    const alice = await hostWith(TOKENS.alice);
    try {
      await alice.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
      await alice.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'echo', arguments: { message: CANARY } } });
      await alice.readResource({ uri: 'mcp-statechart://everything/demo://resource/static/document/architecture.md' });
    } finally {
      await alice.close();
    }
    let text = '';
    for (let wait = 0; wait < 50 && !text.includes('"uri"'); wait++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = readFileSync(auditFile, 'utf8');
    }
    expect(text).not.toContain(CANARY);
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ identity: 'alice', server: 'everything', tool: 'echo', outcome: 'ok' }));
    expect(lines).toContainEqual(expect.objectContaining({ identity: 'alice', server: 'everything', uri: 'demo://resource/static/document/architecture.md', outcome: 'ok' }));
    expect(lines).toContainEqual(expect.objectContaining({ identity: 'bob', outcome: 'refused:rate_limit' }));
  }, 60_000);

  it('writes refused:<why> for a call the gateway answered without asking the server, not tool_error', async () => {
    const alice = await hostWith(TOKENS.alice);
    const call = (args: Record<string, unknown>) => alice.callTool({ name: 'call_mcp_tool', arguments: args });
    try {
      await alice.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
      await call({ server: 'everything', tool: 'no-such-tool', arguments: {} });
      await call({ server: 'no-such-server', tool: 'echo', arguments: {} });
      await call({ server: 'everything', tool: 'echo-with-bad-arguments', arguments: 5 });
    } finally {
      await alice.close();
    }
    const refusals = () =>
      readFileSync(auditFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => ['no-such-tool', 'no-such-server', 'echo-with-bad-arguments'].some((name) => name === line.tool || name === line.server));
    await expect.poll(() => refusals().length, { timeout: 5_000 }).toBe(3);
    expect(refusals().map(({ server, tool, outcome }) => ({ server, tool, outcome }))).toEqual([
      { server: 'everything', tool: 'no-such-tool', outcome: 'refused:unknown_tool' },
      { server: 'no-such-server', tool: 'echo', outcome: 'refused:server_unavailable' },
      { server: 'everything', tool: 'echo-with-bad-arguments', outcome: 'refused:invalid_arguments' },
    ]);
  }, 60_000);
});

/**
 * `serve --http` with a team gateway: a 2025-era host's `Mcp-Session-Id` belongs to the identity
 * that opened it. Another identity presenting it gets the very answer a made-up id gets (status
 * and body), so a token holder cannot learn whether an id is someone's live session. Real
 * processes: serve --http with a gateway file of two identities, the stdio fixture, a v1 host.
 */
import { request as httpRequest } from 'node:http';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from './support/fixtures.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { alice: 'alice-token-71c2', bob: 'bob-token-3f08' };

let team: TeamGateway;

beforeAll(async () => {
  const everything = { allow: ['*'] };
  team = await startTeamGateway('session-identity', { fixture: stdioFixture() }, { alice: { token: TOKENS.alice, ...everything }, bob: { token: TOKENS.bob, ...everything } });
}, 90_000);

afterAll(() => team?.close(), 60_000);

/** A 2025-era request on `sessionId` with `token`: its status and body as the host gets them. */
function listTools(token: string, sessionId: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    };
    const req = httpRequest(team.serve.url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  });
}

describe("a 2025-era session id presented by another identity", () => {
  it('is answered exactly as a made-up id is: same status, same body', async () => {
    const transport = new LegacyHttpTransport(new URL(team.serve.url), { requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } } });
    const alice = new LegacyClient({ name: 'alice-host', version: '1.0.0' });
    await alice.connect(transport);
    team.hosts.push(alice);
    const alicesSession = transport.sessionId as string;
    expect((await listTools(TOKENS.alice, alicesSession)).status).toBe(200);

    const [keyVersion, keyId, sealed] = alicesSession.split('.') as [string, string, string];
    const madeUp = `${keyVersion}.${keyId}.${Buffer.from(sealed, 'base64url').fill(7).toString('base64url')}`;
    const asBob = await listTools(TOKENS.bob, alicesSession);
    expect(asBob).toEqual(await listTools(TOKENS.bob, madeUp));
    expect(asBob).toEqual(await listTools(TOKENS.bob, 'made-up-session-id'));
    expect(asBob.status).toBe(404);
    expect(asBob.text).toContain('start a new session');
  }, 60_000);
});

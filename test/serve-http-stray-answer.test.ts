/**
 * A 2025-era host's answer to a request serve sent it on a call's stream (an elicitation, a
 * sampling or roots request) is delivered only on the replica whose call waits on it. Behind a
 * round-robin balancer the answer may land on another replica: that replica says so to the host
 * (409 with a JSON-RPC error naming why and what to do) instead of swallowing it with a 202, so
 * the host's side fails at once and clearly. The call left waiting on the first replica still
 * ends at its own limit (docs/deploy.md). A real replica; the host is raw HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmptyReplica } from './support/http-serve.js';

const PROTOCOL = '2025-06-18';

let replica: Awaited<ReturnType<typeof startEmptyReplica>>;

beforeAll(async () => {
  replica = await startEmptyReplica('mcp-serve-http-stray-');
}, 90_000);

afterAll(async () => {
  await replica?.close();
}, 60_000);

const post = (body: unknown, sessionId?: string) =>
  fetch(replica.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId && { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL }),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });

describe('a 2025-era host answer that waits on no call of this replica', () => {
  it('is refused with a JSON-RPC error saying it was not delivered and why, not accepted', async () => {
    const initialized = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: { elicitation: {} }, clientInfo: { name: 'legacy-host', version: '1.0.0' } },
    });
    expect(initialized.status).toBe(200);
    const sessionId = initialized.headers.get('mcp-session-id') ?? undefined;
    expect(sessionId).toBeDefined();
    await initialized.body?.cancel();

    // As if another replica had asked: an id no call here waits on.
    const answer = await post({ jsonrpc: '2.0', id: 'elicitation-on-another-replica', result: { action: 'accept', content: { ok: true } } }, sessionId);
    expect(answer.status).toBe(409);
    const body = (await answer.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/waits on no call on this replica.*not delivered.*one replica/);
  }, 30_000);
});

/**
 * `serve --http` tells a 2026-07-28 host's `subscriptions/listen` stream when the prompts and
 * resources it may list changed (a server loaded, or changed its lists). An identity whose policy
 * hides a server is not told of that server's changes: they would say that the server exists, and
 * when another identity uses it. Real processes: serve --http with a gateway file of two identities
 * (bob denied `hidden`), two fixture servers over stdio, raw 2026-07-28 POSTs.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from './support/fixtures.js';
import { gatewayTokenHash, startTeamGateway, type TeamGateway } from './support/http-serve.js';
import { postModern } from './support/modern-post.js';

const TOKENS = { alice: 'alice-token-4f20', bob: 'bob-token-a9d3', carol: 'carol-token-77e1', carolRotated: 'carol-token-rotated-1c05' };

let team: TeamGateway;
let nextId = 1;
const streams: AbortController[] = [];

beforeAll(async () => {
  team = await startTeamGateway(
    'list-changed-policy',
    { shared: stdioFixture(), hidden: stdioFixture(), later: stdioFixture() },
    { alice: { token: TOKENS.alice }, bob: { token: TOKENS.bob, deny: ['hidden'] }, carol: { token: TOKENS.carol } },
  );
}, 90_000);

afterAll(async () => {
  for (const stream of streams) stream.abort();
  await team?.close();
}, 60_000);

function post(token: string, method: string, params: Record<string, unknown>, signal: AbortSignal, name?: string): Promise<Response> {
  return postModern(team.serve.url, { method, name, params, id: nextId++, token, clientName: 'listener', signal });
}

/** Opens a `subscriptions/listen` stream for prompt and resource list changes; `heard` is what came on it so far. */
async function listen(token: string): Promise<{ heard: () => string }> {
  const stream = new AbortController();
  streams.push(stream);
  const answer = await post(token, 'subscriptions/listen', { notifications: { promptsListChanged: true, resourcesListChanged: true } }, stream.signal);
  expect(answer.status).toBe(200);
  let text = '';
  const reader = answer.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (let part = await reader.read(); !part.done; part = await reader.read()) text += decoder.decode(part.value, { stream: true });
  })().catch(() => {});
  await until(() => text.includes('notifications/subscriptions/acknowledged'));
  return { heard: () => text };
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const count = (text: string, method: string) => text.split(`"${method}"`).length - 1;

async function load(token: string, server: string): Promise<void> {
  const answer = await post(token, 'tools/call', { name: 'load_mcp', arguments: { server } }, AbortSignal.timeout(30_000), 'load_mcp');
  const body = (await answer.json()) as { result?: { isError?: boolean } };
  expect(body.result?.isError).toBeFalsy();
}

describe('a list change of a server', () => {
  it('reaches the identities that may see that server, not one whose policy hides it', async () => {
    const alice = await listen(TOKENS.alice);
    const bob = await listen(TOKENS.bob);

    await load(TOKENS.alice, 'hidden');
    await until(() => count(alice.heard(), 'notifications/prompts/list_changed') === 1);
    await load(TOKENS.alice, 'shared');
    await until(() => count(alice.heard(), 'notifications/prompts/list_changed') === 2);
    // bob's stream hears of `shared` (so everything before it has arrived too), and never of `hidden`.
    await until(() => count(bob.heard(), 'notifications/prompts/list_changed') >= 1);
    expect(count(bob.heard(), 'notifications/prompts/list_changed')).toBe(1);
    expect(count(bob.heard(), 'notifications/resources/list_changed')).toBe(1);
    expect(count(alice.heard(), 'notifications/resources/list_changed')).toBe(2);
  }, 60_000);

  it('no longer reaches the stream of a token rotated out under the same name', async () => {
    const carol = await listen(TOKENS.carol);
    writeFileSync(
      team.gatewayFile,
      JSON.stringify({
        identities: {
          alice: { token: gatewayTokenHash(TOKENS.alice) },
          bob: { token: gatewayTokenHash(TOKENS.bob), deny: ['hidden'] },
          carol: { token: gatewayTokenHash(TOKENS.carolRotated) },
        },
      }),
    );
    // The edit is in force once the old token is refused.
    for (const end = Date.now() + 15_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const answer = await post(TOKENS.carol, 'ping', {}, AbortSignal.timeout(5_000));
      await answer.body?.cancel();
      if (answer.status === 401) break;
      if (Date.now() > end) throw new Error('the rotated gateway file never applied');
    }
    const alice = await listen(TOKENS.alice);
    await load(TOKENS.alice, 'later');
    await until(() => count(alice.heard(), 'notifications/prompts/list_changed') === 1);
    expect(count(carol.heard(), 'notifications/prompts/list_changed')).toBe(0);
    expect(count(carol.heard(), 'notifications/resources/list_changed')).toBe(0);
  }, 60_000);
});

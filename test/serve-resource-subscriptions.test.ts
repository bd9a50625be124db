/**
 * `serve` relays a 2025-era host's resource subscriptions: a subscription to a resource as
 * serve names it (`mcp-statechart://<server>/<uri>`) is made on that server, and its updates come
 * back to the host under that name. Real serve over stdio, server-everything and the fixture
 * (which does not offer subscriptions) downstream.
 */
import { describe, expect, it } from 'vitest';
import { everythingStdio } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';
import { callThroughServe, initializeAndLoad, startServe, type ServeHost, type ServeMessage } from './support/serve-host.js';
import { MAX_HOST_SUBSCRIPTIONS } from '../src/serve/resource-subscriptions.js';

const ended = servesEndedAfterEachTest();
const ARCHITECTURE = 'demo://resource/static/document/architecture.md';
const SERVED_ARCHITECTURE = `mcp-statechart://everything/${ARCHITECTURE}`;

async function serveLoaded(): Promise<ServeHost> {
  const serve = ended(startServe({ everything: everythingStdio(), fixture: stdioFixture() }));
  await initializeAndLoad(serve, ['everything', 'fixture']);
  return serve;
}

/** Waits (bounded, 30 s) for a message serve wrote that `matches`. */
async function written(serve: ServeHost, matches: (message: ServeMessage) => boolean): Promise<ServeMessage> {
  for (let wait = 0; wait < 600; wait++) {
    const found = serve.messages().find(matches);
    if (found) return found;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`serve wrote no such message; stderr: ${serve.stderr()}`);
}

const updateOf = (uri: string) => (message: ServeMessage) => message.method === 'notifications/resources/updated' && message.params?.uri === uri;

describe('serve relays resource subscriptions to a 2025-era host', () => {
  it('declares resources.subscribe', async () => {
    const serve = ended(startServe({ everything: everythingStdio() }));
    serve.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } });
    const answer = (await serve.answer(1)) as ServeMessage & { result: { capabilities?: { resources?: unknown } } };
    expect(answer.result.capabilities?.resources).toEqual({ listChanged: true, subscribe: true });
  }, 60_000);

  it("a subscription goes to the resource's server, and its updates come back under the host's URI until it unsubscribes", async () => {
    const serve = await serveLoaded();
    serve.send({ id: 10, method: 'resources/subscribe', params: { uri: SERVED_ARCHITECTURE } });
    expect(await serve.answer(10)).toMatchObject({ result: {} });
    // server-everything sends its subscribers an update at once, then every 5 s.
    callThroughServe(serve, 11, 'everything', 'toggle-subscriber-updates', {});
    await serve.answer(11);
    await written(serve, updateOf(SERVED_ARCHITECTURE));
    expect(serve.messages().some(updateOf(ARCHITECTURE))).toBe(false);

    serve.send({ id: 12, method: 'resources/unsubscribe', params: { uri: SERVED_ARCHITECTURE } });
    expect(await serve.answer(12)).toMatchObject({ result: {} });
  }, 60_000);

  it('a server without resource subscriptions is refused with an error naming it', async () => {
    const serve = await serveLoaded();
    serve.send({ id: 10, method: 'resources/subscribe', params: { uri: 'mcp-statechart://fixture/fixture://greeting' } });
    const answer = await serve.answer(10);
    expect(answer.error?.message).toMatch(/"fixture".*does not offer resource subscriptions/);
  }, 60_000);

  it('a URI serve does not name by a loaded server is refused, saying how resources are named', async () => {
    const serve = await serveLoaded();
    serve.send({ id: 10, method: 'resources/subscribe', params: { uri: ARCHITECTURE } });
    expect((await serve.answer(10)).error?.message).toContain('mcp-statechart://<server>/<uri>');
  }, 60_000);

  it(`a host follows at most ${MAX_HOST_SUBSCRIPTIONS} resources; past that it is told to unsubscribe from one first`, async () => {
    const serve = await serveLoaded();
    const uriOf = (index: number) => `mcp-statechart://everything/demo://resource/dynamic/text/${index}`;
    for (let index = 1; index <= MAX_HOST_SUBSCRIPTIONS; index++) serve.send({ id: 100 + index, method: 'resources/subscribe', params: { uri: uriOf(index) } });
    for (let index = 1; index <= MAX_HOST_SUBSCRIPTIONS; index++) expect(await serve.answer(100 + index)).toMatchObject({ result: {} });

    serve.send({ id: 10, method: 'resources/subscribe', params: { uri: uriOf(MAX_HOST_SUBSCRIPTIONS + 1) } });
    expect((await serve.answer(10)).error?.message).toMatch(new RegExp(`at most ${MAX_HOST_SUBSCRIPTIONS} resources.*resources/unsubscribe`));
    // Subscribing again to one it follows is no new subscription.
    serve.send({ id: 11, method: 'resources/subscribe', params: { uri: uriOf(1) } });
    expect(await serve.answer(11)).toMatchObject({ result: {} });

    serve.send({ id: 12, method: 'resources/unsubscribe', params: { uri: uriOf(1) } });
    await serve.answer(12);
    serve.send({ id: 13, method: 'resources/subscribe', params: { uri: uriOf(MAX_HOST_SUBSCRIPTIONS + 1) } });
    expect(await serve.answer(13)).toMatchObject({ result: {} });
  }, 90_000);
});

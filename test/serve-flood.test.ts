/**
 * A server that floods `serve` with messages for the host cannot wedge it: serve writes to its
 * host through one bounded queue, so a host that reads slower than the server writes gets the
 * latest progress per token, log messages up to the bound (and then how many were dropped), at
 * most a few of each server's requests at a time; everything else keeps working. Real processes:
 * the CLI's serve, the hostile fixture server that floods, the fixture server beside it, and a
 * host (this test) that stops reading serve's stdout while the flood comes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVE_WARNINGS_PER_MINUTE } from '../src/cli/logger.js';
import { SHUTDOWN_LIMIT_MS } from '../src/cli/serve-lifecycle.js';
import { CLIENT_LOGGER } from '../src/connection/client-logger.js';
import { MAX_RELAYED_REQUESTS_PER_SERVER } from '../src/serve/relay-limits.js';
import { descendantsAfter } from './support/chaos-helpers.js';
import { stdioFixture } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';
import {
  answerText,
  callThroughServe,
  fileAppears,
  initializeAndLoad,
  quiet,
  residentMb,
  startServe,
  type ServeHost,
  type ServeMessage,
} from './support/serve-host.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';

/** Messages per flood, each padded to about 10 kB: 50 MB in all, a size whose pile-up shows in serve's memory. */
const FLOOD = 5_000;
const PAD = 10_000;

const endedAfterTest = servesEndedAfterEachTest();

/** serve with the hostile server and the fixture server, both loaded by a host that declares `capabilities`. */
async function serveWithBothLoaded(capabilities: object = {}): Promise<ServeHost> {
  const serve = endedAfterTest(startServe({ hostile: hostileServer(), fixture: stdioFixture() }, { env: { NODE_OPTIONS: SERVE_HEAP } }));
  await initializeAndLoad(serve, ['hostile', 'fixture'], capabilities);
  return serve;
}

/** Waits (bounded) until the hostile server has handed its whole flood to the pipe towards serve. */
async function floodSent(doneFile: string): Promise<void> {
  expect(await fileAppears(doneFile)).toBe(true);
}

// serve's old space is capped, so garbage from parsing the flood is collected before it shows in
// the resident memory (the v2 SDK parses more per message, and without a cap the growth varied
// from 38 to 119 MB run to run with nothing kept); a serve that kept the flood runs out of heap.
const SERVE_HEAP = '--max-old-space-size=128';

// serve's resident memory: parsing 50 MB of messages leaves garbage that shows there too. With
// the bounded queue the flood grew serve by 40–60 MB; when everything piled up, by 135–140 MB.

/** While the host does not read: the flood, then a call to the other server and a ping; then the host reads again. */
async function floodWhileHostDoesNotRead(host: ServeHost, kind: 'progress' | 'log' | 'sampling', count: number) {
  const before = residentMb(host.pid);
  host.pauseReading();
  const doneFile = join(host.home, `${kind}-flood-sent`);
  callThroughServe(host, 10, 'hostile', 'flood', { kind, count, pad: PAD, doneFile }, { progressToken: 'flood' });
  await floodSent(doneFile);
  callThroughServe(host, 11, 'fixture', 'echo', { text: 'still here' });
  host.send({ id: 12, method: 'ping' });
  await quiet(host.pid);
  const grownMb = residentMb(host.pid) - before;
  host.resumeReading();
  const [flood, echo, ping] = [await host.answer(10), await host.answer(11), await host.answer(12)];
  return { flood, echo, ping, grownMb };
}

describe('serve under a flood from one server, its host reading slowly', () => {
  it(`${FLOOD.toLocaleString('en')} progress notifications: the host gets the latest value per token, not every one; the other server and ping still answer`, async () => {
    const host = await serveWithBothLoaded();
    const { flood, echo, ping, grownMb } = await floodWhileHostDoesNotRead(host, 'progress', FLOOD);

    expect(answerText(flood)).toBe('sent');
    expect(answerText(echo)).toBe('still here');
    expect(ping.result).toEqual({});
    const progress = host.messages().filter((message) => message.method === 'notifications/progress');
    expect(progress.length).toBeLessThan(FLOOD / 4);
    // The latest value: the SDK client handles a notification a microtask later than a response,
    // so the last few, read in the same chunk as the flood's answer, find their handler gone.
    expect(progress.at(-1)?.params).toMatchObject({ progressToken: 'flood', total: FLOOD });
    expect(Number(progress.at(-1)?.params?.progress)).toBeGreaterThan(FLOOD * 0.99);
    expect(grownMb).toBeLessThan(90);
  }, 120_000);

  it(`${FLOOD.toLocaleString('en')} log messages: those past the bounds (the gateway's per server, the host queue's) are dropped and counted, and the host is told how many`, async () => {
    const host = await serveWithBothLoaded();
    const { echo, ping, grownMb } = await floodWhileHostDoesNotRead(host, 'log', FLOOD);

    expect(answerText(echo)).toBe('still here');
    expect(ping.result).toEqual({});
    const logs = () => host.messages().filter((message) => message.method === 'notifications/message');
    const warnings = () => logs().filter((message) => message.params?.logger === 'mcp-statechart' || message.params?.logger === `hostile/${CLIENT_LOGGER}`);
    for (let wait = 0; wait < 100 && warnings().length === 0; wait++) await new Promise((done) => setTimeout(done, 50));
    const relayed = logs().filter((message) => message.params?.logger === 'hostile/hostile').length;
    // Past MAX_LOG_MESSAGES_PER_SECOND the gateway drops them ("dropped N log messages …"); past its
    // queue's bound serve does ("N log messages … dropped"); a warning may itself be dropped by the queue.
    const counted = warnings().map((message) => Number(/(\d+) log messages/.exec(String(message.params?.data))?.[1]));
    const dropped = counted.reduce((sum, count) => sum + count, 0);
    expect(relayed).toBeLessThan(FLOOD);
    expect(warnings()[0]?.params).toMatchObject({ level: 'warning' });
    expect(dropped).toBeGreaterThan(0);
    expect(relayed + dropped).toBeLessThanOrEqual(FLOOD);
    expect(grownMb).toBeLessThan(90);
  }, 120_000);

  it(`200 sampling requests: ${MAX_RELAYED_REQUESTS_PER_SERVER} go up to the host at a time, the rest are answered with an error at once`, async () => {
    const host = await serveWithBothLoaded({ sampling: {} });
    const { echo, ping } = await floodWhileHostDoesNotRead(host, 'sampling', 200);

    expect(answerText(echo)).toBe('still here');
    expect(ping.result).toEqual({});
    const asked = host.messages().filter((message) => message.method === 'sampling/createMessage');
    expect(asked).toHaveLength(MAX_RELAYED_REQUESTS_PER_SERVER);
    callThroughServe(host, 13, 'hostile', 'replies', {});
    expect(JSON.parse(answerText(await host.answer(13)))).toEqual({ results: 0, errors: 200 - MAX_RELAYED_REQUESTS_PER_SERVER });
  }, 120_000);

  it('ends within its stop limit when the host closes stdin with 20,000 progress notifications and 50 sampling requests for it, its servers ended too', async () => {
    const host = await serveWithBothLoaded({ sampling: {} });
    host.pauseReading();
    const doneFile = join(host.home, 'flood-sent');
    callThroughServe(host, 10, 'hostile', 'flood', { kind: 'progress', count: 20_000, doneFile }, { progressToken: 'flood' });
    await floodSent(doneFile);
    callThroughServe(host, 11, 'hostile', 'flood', { kind: 'sampling', count: 50 });
    await quiet(host.pid);
    const closed = Date.now();
    // The host reads again as it closes: every drain of serve's stdout comes while it stops.
    host.resumeReading();
    host.end();
    const { code, at } = await host.exited;

    expect(code).toBe(0);
    expect(at - closed).toBeLessThan(SHUTDOWN_LIMIT_MS + 1_500);
    expect(await descendantsAfter()).toEqual([]);
  }, 120_000);
});

describe("serve's own stderr, under a server that writes line after line that is not JSON", () => {
  it(`5,000 such lines: at most ${SERVE_WARNINGS_PER_MINUTE} warnings a minute reach stderr (before: one per line); the call answers`, async () => {
    const host = await serveWithBothLoaded();
    callThroughServe(host, 10, 'hostile', 'noise', { count: 5_000 });
    expect(answerText(await host.answer(10))).toBe('noisy');
    callThroughServe(host, 11, 'fixture', 'echo', { text: 'still here' });
    expect(answerText(await host.answer(11))).toContain('still here');
    const warnings = host.stderr().split('\n').filter((line) => line.includes('not JSON'));
    expect(warnings.length).toBe(SERVE_WARNINGS_PER_MINUTE);
  }, 60_000);
});

/**
 * A server that floods `serve` with messages for the host cannot wedge it: serve writes to its
 * host through one bounded queue, so a host that reads slower than the server writes gets the
 * latest progress per token, log messages up to the bound (and then how many were dropped), at
 * most a few of each server's requests at a time; everything else keeps working. Real processes:
 * the CLI's serve, the hostile fixture server that floods, the fixture server beside it, and a
 * host (this test) that stops reading serve's stdout while the flood comes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SHUTDOWN_LIMIT_MS } from '../src/cli/serve-lifecycle.js';
import { MAX_RELAYED_REQUESTS_PER_SERVER } from '../src/serve/relay-limits.js';
import { descendantsAfter } from './support/chaos-helpers.js';
import { stdioFixture } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';
import { startServe, type ServeHost, type ServeMessage } from './support/serve-host.js';

/** Messages per flood, each padded to about 10 kB: 50 MB in all, a size whose pile-up shows in serve's memory. */
const FLOOD = 5_000;
const PAD = 10_000;

let serve: ServeHost | undefined;
afterEach(async () => {
  if (!serve) return;
  serve.end();
  await serve.exited;
  serve.cleanUp();
  serve = undefined;
});

/** serve with the hostile server and the fixture server, both loaded by a host that declares `capabilities`. */
async function serveWithBothLoaded(capabilities: object = {}): Promise<ServeHost> {
  serve = startServe({ hostile: hostileServer(), fixture: stdioFixture() });
  serve.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'slow host', version: '1' } } });
  await serve.answer(1);
  serve.send({ method: 'notifications/initialized' });
  for (const [id, server] of [[2, 'hostile'], [3, 'fixture']] as const) {
    serve.send({ id, method: 'tools/call', params: { name: 'load_mcp', arguments: { server } } });
    expect((await serve.answer(id)).result?.isError).toBeFalsy();
  }
  return serve;
}

function callTool(host: ServeHost, id: number, server: string, tool: string, args: object, meta?: object): void {
  host.send({ id, method: 'tools/call', params: { name: 'call_mcp_tool', arguments: { server, tool, arguments: args }, ...(meta && { _meta: meta }) } });
}

/** Waits (bounded) until the hostile server has handed its whole flood to the pipe towards serve. */
async function floodSent(doneFile: string): Promise<void> {
  for (let wait = 0; wait < 1_200 && !existsSync(doneFile); wait++) await new Promise((done) => setTimeout(done, 50));
  expect(existsSync(doneFile)).toBe(true);
}

/** CPU time (user + system) `pid` has used, in clock ticks. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Waits (bounded) until `pid` has taken in what it was sent: under 30 ms of CPU in 300 ms. */
async function quiet(pid: number): Promise<void> {
  let before = cpuTicks(pid);
  for (let wait = 0; wait < 60; wait++) {
    await new Promise((done) => setTimeout(done, 300));
    const now = cpuTicks(pid);
    if (now - before < 3) return;
    before = now;
  }
}

/**
 * serve's resident memory, in MB. Parsing 50 MB of messages leaves garbage that shows here too:
 * with the bounded queue the flood grew serve by 40–60 MB, when everything piled up by 135–140 MB.
 */
function residentMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

const textOf = (message: ServeMessage) => message.result?.content?.map((part) => part.text ?? '').join('') ?? '';

/** While the host does not read: the flood, then a call to the other server and a ping; then the host reads again. */
async function floodWhileHostDoesNotRead(host: ServeHost, kind: 'progress' | 'log' | 'sampling', count: number) {
  const before = residentMb(host.pid);
  host.pauseReading();
  const doneFile = join(host.home, `${kind}-flood-sent`);
  callTool(host, 10, 'hostile', 'flood', { kind, count, pad: PAD, doneFile }, { progressToken: 'flood' });
  await floodSent(doneFile);
  callTool(host, 11, 'fixture', 'echo', { text: 'still here' });
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

    expect(textOf(flood)).toBe('sent');
    expect(textOf(echo)).toBe('still here');
    expect(ping.result).toEqual({});
    const progress = host.messages().filter((message) => message.method === 'notifications/progress');
    expect(progress.length).toBeLessThan(FLOOD / 4);
    // The latest value: the SDK client handles a notification a microtask later than a response,
    // so the last few, read in the same chunk as the flood's answer, find their handler gone.
    expect(progress.at(-1)?.params).toMatchObject({ progressToken: 'flood', total: FLOOD });
    expect(Number(progress.at(-1)?.params?.progress)).toBeGreaterThan(FLOOD * 0.99);
    expect(grownMb).toBeLessThan(90);
  }, 120_000);

  it(`${FLOOD.toLocaleString('en')} log messages: those past the bound are dropped and counted, and the host is told how many`, async () => {
    const host = await serveWithBothLoaded();
    const { echo, ping, grownMb } = await floodWhileHostDoesNotRead(host, 'log', FLOOD);

    expect(textOf(echo)).toBe('still here');
    expect(ping.result).toEqual({});
    const logs = () => host.messages().filter((message) => message.method === 'notifications/message');
    let report: ServeMessage | undefined;
    for (let wait = 0; wait < 100 && !report; wait++) {
      report = logs().find((message) => message.params?.logger === 'mcp-statechart');
      if (!report) await new Promise((done) => setTimeout(done, 50));
    }
    const relayed = logs().filter((message) => message.params?.logger === 'hostile/hostile').length;
    const dropped = Number(/^(\d+) log messages/.exec(String(report?.params?.data))?.[1]);
    expect(relayed).toBeLessThan(FLOOD);
    expect(relayed + dropped).toBe(FLOOD);
    expect(report?.params).toMatchObject({ level: 'warning', data: expect.stringMatching(/dropped: the host read them slower than they came/) });
    expect(grownMb).toBeLessThan(90);
  }, 120_000);

  it(`200 sampling requests: ${MAX_RELAYED_REQUESTS_PER_SERVER} go up to the host at a time, the rest are answered with an error at once`, async () => {
    const host = await serveWithBothLoaded({ sampling: {} });
    const { echo, ping } = await floodWhileHostDoesNotRead(host, 'sampling', 200);

    expect(textOf(echo)).toBe('still here');
    expect(ping.result).toEqual({});
    const asked = host.messages().filter((message) => message.method === 'sampling/createMessage');
    expect(asked).toHaveLength(MAX_RELAYED_REQUESTS_PER_SERVER);
    callTool(host, 13, 'hostile', 'replies', {});
    expect(JSON.parse(textOf(await host.answer(13)))).toEqual({ results: 0, errors: 200 - MAX_RELAYED_REQUESTS_PER_SERVER });
  }, 120_000);

  it('ends within its stop limit when the host closes stdin with 20,000 progress notifications and 50 sampling requests for it, its servers ended too', async () => {
    const host = await serveWithBothLoaded({ sampling: {} });
    host.pauseReading();
    const doneFile = join(host.home, 'flood-sent');
    callTool(host, 10, 'hostile', 'flood', { kind: 'progress', count: 20_000, doneFile }, { progressToken: 'flood' });
    await floodSent(doneFile);
    callTool(host, 11, 'hostile', 'flood', { kind: 'sampling', count: 50 });
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

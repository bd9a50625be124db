/**
 * The queue between serve and its host (src/serve/host-output.ts), as a unit: a stdout that
 * takes a few messages and then never drains, or drains when the test says so.
 */
import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { HOST_STALLED_MS, HostOutput } from '../src/serve/host-output.js';

/** A stdout whose buffer fills after `highWaterMark` bytes and drains only when `drain()` is called. */
function slowStdout() {
  const written: string[] = [];
  const pending: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: 1_024,
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      pending.push(done);
    },
  });
  const drain = () => {
    while (pending.length > 0) pending.shift()!();
  };
  const messages = () => written.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { method?: string; id?: number; params?: Record<string, unknown> });
  return { stream, drain, messages };
}

const log = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'flood', data: `log ${n}` } });
const progress = (token: string, n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: n } });
const limits = { messages: 100, bytes: 64 * 1024 };

describe('the queue to the host', () => {
  it('holds at most its limit of log messages while the host does not read, and then says how many it dropped', async () => {
    const stdout = slowStdout();
    const output = new HostOutput(stdout.stream, limits);
    for (let n = 1; n <= 100_000; n++) output.send(log(n));
    expect(output.waiting).toBeLessThanOrEqual(limits.messages);
    for (let round = 0; round < 100 && (output.waiting > 0 || stdout.messages().every((message) => message.params?.logger !== 'mcp-statechart')); round++) {
      stdout.drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const messages = stdout.messages();
    const relayed = messages.filter((message) => message.params?.logger === 'flood').length;
    const report = messages.find((message) => message.params?.logger === 'mcp-statechart');
    expect(relayed).toBeLessThan(1_000);
    expect(report?.params?.data).toBe(`${100_000 - relayed} log messages from servers were dropped: the host read them slower than they came.`);
  });

  it('keeps only the latest progress per token, in the place of the first, and never drops a response or a request', async () => {
    const stdout = slowStdout();
    const output = new HostOutput(stdout.stream, limits);
    for (let n = 1; n <= 50; n++) output.send(log(n));
    for (let n = 1; n <= 10_000; n++) {
      output.send(progress('a', n));
      output.send(progress('b', n));
    }
    for (let id = 1; id <= 500; id++) output.send({ jsonrpc: '2.0', id, result: {} });
    output.send({ jsonrpc: '2.0', id: 'ask', method: 'sampling/createMessage', params: {} });
    for (let n = 1; n <= 1_000; n++) output.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(output.waiting).toBeLessThan(limits.messages + 510);
    for (let round = 0; round < 100 && output.waiting > 0; round++) {
      stdout.drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const messages = stdout.messages();
    const progressOf = (token: string) => messages.filter((message) => message.params?.progressToken === token).map((message) => message.params?.progress);
    expect(progressOf('a').at(-1)).toBe(10_000);
    expect(progressOf('b').at(-1)).toBe(10_000);
    expect(progressOf('a').length).toBeLessThan(100);
    expect(messages.filter((message) => message.id !== undefined && message.method === undefined)).toHaveLength(500);
    expect(messages.filter((message) => message.method === 'sampling/createMessage')).toHaveLength(1);
    expect(messages.filter((message) => message.method === 'notifications/tools/list_changed').length).toBeLessThanOrEqual(2);
  });

  it('stops reading the host while answers to its requests wait, and reads again once it has caught up', async () => {
    const stdout = slowStdout();
    const hostInput = new PassThrough();
    hostInput.on('data', () => {});
    const output = new HostOutput(stdout.stream, limits, hostInput);
    // A host that writes requests and never reads: answers are kept (a large one past 10 MiB waiting becomes an error), so only not reading bounds their count.
    for (let id = 1; id <= limits.messages * 2; id++) {
      output.send({ jsonrpc: '2.0', id, result: {} });
      if (hostInput.isPaused()) break;
    }
    expect(hostInput.isPaused()).toBe(true);
    expect(output.waiting).toBeLessThanOrEqual(limits.messages);
    for (let round = 0; round < 100 && output.waiting > 0; round++) {
      stdout.drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(output.waiting).toBe(0);
    expect(hostInput.isPaused()).toBe(false);
  });
});

describe('answers to a host that does not read them', () => {
  const big = (id: number, text = 'x'.repeat(1024 * 1024)): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
  /** A clock the test moves: HostOutput reads it to tell a stalled host. */
  const testClock = () => {
    let at = 1_000_000;
    return { now: () => at, advance: (ms: number) => (at += ms) };
  };
  const unlimited = { messages: 100_000, bytes: 1024 * 1024 * 1024 };
  async function drainAll(stdout: ReturnType<typeof slowStdout>, output: HostOutput) {
    for (let round = 0; round < 100 && output.waiting > 0; round++) {
      stdout.drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('keeps large answers up to HOST_UNSENT_ANSWERS_BYTES waiting; a larger one past that becomes an error, small ones are kept', async () => {
    const stdout = slowStdout();
    const clock = testClock();
    const output = new HostOutput(stdout.stream, unlimited, undefined, clock.now);
    output.send(big(1));
    clock.advance(HOST_STALLED_MS);
    for (let id = 2; id <= 15; id++) output.send(big(id));
    output.send({ jsonrpc: '2.0', id: 16, result: {} });
    await drainAll(stdout, output);
    const answers = stdout.messages() as Array<{ id: number; result?: unknown; error?: { message: string } }>;
    expect(answers.map((answer) => answer.id)).toEqual(Array.from({ length: 16 }, (_, index) => index + 1));
    const kept = answers.filter((answer) => answer.result !== undefined);
    // The first is written at once; ten more fit in 10 MiB waiting (each is a little over 1 MiB as JSON: nine).
    expect(kept.map((answer) => answer.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16]);
    expect(answers[10]!.error!.message).toMatch(/^mcp-statechart serve did not send this answer \(1\.0 MiB\): 9\.0 MiB of its earlier answers still wait unread \(the host has read none of its output for 2 s or more\)/);
  });

  it('counts what waits in UTF-8 bytes: answers of 3-byte characters pass the bound three times sooner than their length says', async () => {
    const stdout = slowStdout();
    const clock = testClock();
    const output = new HostOutput(stdout.stream, unlimited, undefined, clock.now);
    output.send(big(1));
    clock.advance(HOST_STALLED_MS);
    // 1 Mi characters of '€' (3 bytes each): 3 MiB apiece as the host's pipe carries them.
    for (let id = 2; id <= 6; id++) output.send(big(id, '€'.repeat(1024 * 1024)));
    await drainAll(stdout, output);
    const answers = stdout.messages() as Array<{ id: number; result?: unknown; error?: { message: string } }>;
    expect(answers.filter((answer) => answer.result !== undefined).map((answer) => answer.id)).toEqual([1, 2, 3, 4]);
    expect(answers[4]!.error!.message).toMatch(/did not send this answer \(3\.0 MiB\): 9\.0 MiB of its earlier answers/);
  });
});

describe('answers to a host that reads them', () => {
  it('are all sent however much waits, while the host has read something within HOST_STALLED_MS', async () => {
    const stdout = slowStdout();
    let at = 0;
    const output = new HostOutput(stdout.stream, { messages: 100_000, bytes: 1024 * 1024 * 1024 }, undefined, () => at);
    const big = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'y'.repeat(5 * 1024 * 1024) }] } });
    // Four 5 MiB answers come together while the pipe is full: 15 MiB wait for a moment.
    for (let id = 1; id <= 4; id++) output.send(big(id));
    at += HOST_STALLED_MS - 1;
    // The host reads a little (a drain), then is slow again: what waits passes 10 MiB once more.
    stdout.drain();
    await new Promise((resolve) => setImmediate(resolve));
    at += HOST_STALLED_MS - 1;
    for (let id = 5; id <= 8; id++) output.send(big(id));
    for (let round = 0; round < 100 && output.waiting > 0; round++) {
      stdout.drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const answers = stdout.messages() as Array<{ id: number; result?: unknown; error?: unknown }>;
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(answers.filter((answer) => answer.error !== undefined)).toEqual([]);
  });
});

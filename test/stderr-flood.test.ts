/**
 * One server's stderr can never stall or crash the process that hosts the others: the tail
 * keeps a bounded number of bytes however the server writes. Real processes: the hostile
 * fixture floods its stderr without a newline while a healthy server answers calls.
 */
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { silentLogger } from '../src/logger.js';
import { FIRST_STDERR_LINES, MAX_STDERR_LINE, StderrTail } from '../src/transports/stderr-tail.js';
import { descendantsAfter, textOf } from './support/chaos-helpers.js';
import { stdioFixture } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';

const MB = 1024 * 1024;
const managers: McpConnectionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('a server flooding stderr without a newline', () => {
  it('1 GB of it leaves the heap under 200 MB and a healthy server answering in under 50 ms (median)', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    await manager.connect('healthy', stdioFixture());
    await manager.connect('flood', hostileServer('--stderr-flood', '1024'));

    const latencies: number[] = [];
    let peakHeap = 0;
    let flooded = 0;
    // Bounded by time, not by rounds: 1 GB through a pipe takes seconds, not minutes, even on a
    // loaded machine, while on a quiet one (Node 24) 2,000 rounds of calls ended at 821 MB.
    const deadline = Date.now() + 90_000;
    while (flooded < 1024 && Date.now() < deadline) {
      for (let call = 0; call < 10; call++) {
        const started = performance.now();
        expect(textOf(await manager.callTool('healthy', 'echo', { text: 'ping' }))).toBe('ping');
        latencies.push(performance.now() - started);
        peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      }
      flooded = Number(textOf(await manager.callTool('flood', 'flooded', {})));
    }

    expect(flooded).toBe(1024);
    expect(peakHeap).toBeLessThan(200 * MB);
    expect(median(latencies)).toBeLessThan(50);
    expect(manager.getState('flood')).toBe('connected');
  }, 120_000);
});

/** As many lines as the tail keeps from the start, before those it keeps from the end. */
const FIRST = Array.from({ length: FIRST_STDERR_LINES }, (_, n) => `start ${n}`);
const FIRST_LINES = `${FIRST.join('\n')}\n`;

describe('the stderr tail', () => {
  it('keeps the start of an endless line, cut, and says how much was left out', () => {
    const stream = new Readable({ read() {} });
    const tail = new StderrTail(stream, []);
    for (let chunk = 0; chunk < 100; chunk++) stream.emit('data', Buffer.alloc(64 * 1024, 'z'));
    const text = tail.text();
    expect(text.length).toBeLessThan(MAX_STDERR_LINE + 100);
    expect(text).toMatch(new RegExp(`^z{${MAX_STDERR_LINE}}… \\[${100 * 64 * 1024 - MAX_STDERR_LINE} more bytes\\]$`));
  });

  it('keeps the last lines after the first ones, each cut, secrets redacted, a line split across chunks joined', () => {
    const stream = new Readable({ read() {} });
    const tail = new StderrTail(stream, ['hunter2-secret'], 3);
    stream.emit('data', Buffer.from(FIRST_LINES));
    stream.emit('data', Buffer.from('one\ntwo hunter2-'));
    stream.emit('data', Buffer.from('secret\r\n'));
    stream.emit('data', Buffer.from(`${'y'.repeat(5_000)}\nfour\npart`));
    expect(tail.text().split('\n')).toEqual([...FIRST, '… [2 lines left out]', `${'y'.repeat(MAX_STDERR_LINE)}… [4000 more bytes]`, 'four', 'part']);
    stream.emit('data', Buffer.from('\nfive\n'));
    expect(tail.text()).not.toContain('hunter2');
    expect(tail.text().split('\n')).toEqual([...FIRST, '… [3 lines left out]', 'four', 'part', 'five']);
  });

  it('keeps the first lines whole when nothing came after them, and without a gap when nothing was left out', () => {
    const stream = new Readable({ read() {} });
    const tail = new StderrTail(stream, [], 3);
    stream.emit('data', Buffer.from('why it failed\nstack 1\n'));
    expect(tail.text()).toBe('why it failed\nstack 1');
    stream.emit('data', Buffer.from(`${['stack 2', 'stack 3', 'stack 4', 'stack 5', 'stack 6', 'stack 7'].join('\n')}\n`));
    expect(tail.text().split('\n')).toEqual(['why it failed', 'stack 1', 'stack 2', 'stack 3', 'stack 4', 'stack 5', 'stack 6', 'stack 7']);
    stream.emit('data', Buffer.from('stack 8\n'));
    expect(tail.text().split('\n')).toEqual(['why it failed', 'stack 1', 'stack 2', 'stack 3', 'stack 4', '… [1 line left out]', 'stack 6', 'stack 7', 'stack 8']);
  });

  it('shows no part of a secret that begins in the first lines and goes on into the lines left out', () => {
    const secret = 'tok-9f3a\n77c1e2';
    const stream = new Readable({ read() {} });
    const tail = new StderrTail(stream, [secret], 1);
    stream.emit('data', Buffer.from(`${FIRST.slice(0, -1).join('\n')}\nkey: tok-9f3a\n77c1e2\nlast\n`));
    expect(tail.text().split('\n')).toEqual([...FIRST.slice(0, -1), 'key: [redacted]', '… [1 line left out]', 'last']);
  });

  it('shows no part of a secret that the cut goes through', () => {
    const secret = 'tok-9f3a77c1e2';
    const stream = new Readable({ read() {} });
    const tail = new StderrTail(stream, [secret]);
    // The cut at MAX_STDERR_LINE falls after the secret's first 6 characters.
    stream.emit('data', Buffer.from(`${'x'.repeat(MAX_STDERR_LINE - 6)}${secret} and more\n`));
    const line = tail.text();
    expect(line).not.toContain(secret.slice(0, 3));
    expect(line).toBe(`${'x'.repeat(MAX_STDERR_LINE - 6)}[redacted]… [${secret.length - 6 + ' and more'.length} more bytes]`);
  });

  it('shows no part of a secret at the end of a line still being written', () => {
    const secret = 'tok-9f3a77c1e2';
    const stream = new Readable({ read() {} });
    const tail = new StderrTail(stream, [secret]);
    stream.emit('data', Buffer.from('Authorization: Bearer tok-9f3a'));
    expect(tail.text()).toBe('Authorization: Bearer [redacted]');
    stream.emit('data', Buffer.from('77c1e2 accepted\n'));
    expect(tail.text()).toBe('Authorization: Bearer [redacted] accepted');
  });

  it('keeps two-byte characters whole at the cut', () => {
    const stream = new Readable({ read() {} });
    const tail = new StderrTail(stream, []);
    // One byte, then two-byte characters: the cut at MAX_STDERR_LINE bytes falls inside one.
    stream.emit('data', Buffer.from(`a${'é'.repeat(MAX_STDERR_LINE)}\n`));
    expect(tail.text()).toBe(`a${'é'.repeat(MAX_STDERR_LINE / 2 - 1)}… [${MAX_STDERR_LINE + 2} more bytes]`);
  });
});

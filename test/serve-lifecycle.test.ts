/**
 * `serve` ends when its host connection ends, however it ends: the host closing stdin, or the
 * SDK's stdio transport closing itself after a message over 10 MiB (it then stops reading
 * stdin, so serve must notice the close). It logs why on stderr, disconnects every server it
 * started and exits, non-zero when the connection broke. Real processes: the CLI and the
 * fixture server.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { hostInput } from '../src/cli/serve-lifecycle.js';
import { MAX_MESSAGE_BYTES, MessageTooLargeError } from '../src/transports/message-size.js';
import { descendantsAfter } from './support/chaos-helpers.js';
import { feedOversizedRequest, loadFixture, startServe } from './support/serve-host.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';

const endedAfterTest = servesEndedAfterEachTest();

describe('mcp-statechart serve', () => {
  it('fed an 11 MB request, exits non-zero within 5 s with the reason on stderr and no child left', async () => {
    const serve = endedAfterTest(startServe());
    const { code, ms } = await feedOversizedRequest(serve);

    expect(code).toBe(1);
    expect(ms).toBeLessThan(5_000);
    expect(serve.stderr()).toMatch(/serve stops: the host sent a message over 10 MiB; serve stopped reading it/);
    expect(await descendantsAfter()).toEqual([]);
  }, 30_000);

  it('ends within 5 s when the host closes stdin, with a server connected, exit code 0 and no child left', async () => {
    const serve = endedAfterTest(startServe());
    await loadFixture(serve);
    const closed = Date.now();
    serve.end();
    const { code, at } = await serve.exited;

    expect(code).toBe(0);
    expect(at - closed).toBeLessThan(5_000);
    expect(serve.stderr()).not.toMatch(/serve stops/);
    expect(await descendantsAfter()).toEqual([]);
  }, 30_000);
});

describe('hostInput', () => {
  it('passes whole lines on, a line split over chunks joined once', async () => {
    const stdin = new PassThrough();
    const input = hostInput(stdin);
    const seen: string[] = [];
    input.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
    stdin.write('{"a":1}\n{"b"');
    stdin.write(':2');
    stdin.write('}\n{"c":3}\n');
    stdin.end();
    await new Promise((done) => input.once('end', done));
    expect(seen).toEqual(['{"a":1}\n', '{"b":2}\n{"c":3}\n']);
  });

  it('fails as soon as a line passes the size limit, without passing any of it on', async () => {
    const stdin = new PassThrough();
    const input = hostInput(stdin);
    let passed = 0;
    input.on('data', (chunk: Buffer) => (passed += chunk.length));
    const failed = new Promise<Error>((done) => input.once('error', done));
    const piece = Buffer.alloc(1024 * 1024, 'x');
    for (let written = 0; written <= MAX_MESSAGE_BYTES; written += piece.length) stdin.write(piece);
    const error = await failed;
    expect(error).toBeInstanceOf(MessageTooLargeError);
    expect(error.message).toBe('the host sent a message over 10 MiB; serve stopped reading it');
    expect(passed).toBe(0);
  });
});

/**
 * A call still running when serve stops is answered, and the answer says why: the gateway is
 * shutting down, so the host retries once it is back (or on another replica), not "call load_mcp
 * to reconnect", which would only reach the gateway that is going away. Real processes: the CLI's
 * serve and the fixture server, whose `slow` tool outlasts the stop.
 */
import { describe, expect, it } from 'vitest';
import { SHUTTING_DOWN_TEXT } from '../src/serve/shutting-down.js';
import { answerText, callThroughServe, loadFixture, startServe, type ServeHost } from './support/serve-host.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';

const endedAfterTest = servesEndedAfterEachTest();

const stops = {
  'stopped by SIGTERM': (serve: ServeHost) => process.kill(serve.pid, 'SIGTERM'),
  // How MCP's stdio binding says a host shuts a server down; the host still reads stdout meanwhile.
  'whose host closes stdin': (serve: ServeHost) => serve.end(),
};

describe.each(Object.entries(stops))('stdio serve %s with a call in flight', (_stop, stop) => {
  it('answers the call with an error saying the gateway is shutting down, then exits 0', async () => {
    const serve = endedAfterTest(startServe());
    await loadFixture(serve);
    callThroughServe(serve, 10, 'fixture', 'slow', { ms: 50_000 });
    // Time for the call to reach the fixture; one that had not yet would be cut off the same way.
    await new Promise((done) => setTimeout(done, 1_000));
    stop(serve);

    expect((await serve.exited).code).toBe(0);
    const answer = await serve.answer(10);
    expect(answer.result?.isError).toBe(true);
    expect(answerText(answer)).toBe(SHUTTING_DOWN_TEXT);
    expect(answerText(answer)).not.toContain('load_mcp');
  }, 60_000);
});

/**
 * A host's line that is not a JSON-RPC message serve can read (not JSON, `"params": null`, a
 * `jsonrpc` other than "2.0", a `progressToken` of the wrong type) is answered as JSON-RPC 2.0
 * says — Parse error (-32700) or Invalid Request (-32600), under the request's id when it has a
 * usable one, else with no id, as the SDK types an error for an unknown request — and stderr says so, without the line's content. Before, the SDK
 * dropped such a line without a word, and a host waiting on that request waited for ever.
 * Real processes: serve (the CLI) and its fixture server.
 */
import { describe, expect, it, vi } from 'vitest';
import { serveForEachTest } from './support/serve-each-test.js';
import type { ServeMessage } from './support/serve-host.js';

const SECRET_IN_LINE = 'not-for-stderr-31337';

const serve = serveForEachTest();

/** Waits (bounded) until serve has written `count` error responses without an id. */
async function errorsWithoutId(count: number): Promise<ServeMessage[]> {
  const found = () => serve().messages().filter((message) => message.id === undefined && message.error);
  for (let wait = 0; wait < 600 && found().length < count; wait++) await new Promise((done) => setTimeout(done, 50));
  return found();
}

/** Waits (bounded) for serve's stderr to say `line`: it comes down another pipe than the answer, so it may be read after it. */
async function stderrSays(line: RegExp): Promise<void> {
  await vi.waitFor(() => expect(serve().stderr()).toMatch(line), { timeout: 10_000 });
}

describe('serve, sent a request it cannot read', () => {
  it.each([
    ['"params": null', { jsonrpc: '2.0', id: 11, method: 'tools/list', params: null }],
    ['"jsonrpc": "1.0"', { jsonrpc: '1.0', id: 12, method: 'tools/list' }],
    ['a progressToken that is an object', { jsonrpc: '2.0', id: 13, method: 'tools/list', params: { _meta: { progressToken: { a: 1 } } } }],
    ['a string id and no "jsonrpc"', { id: 'list-14', method: 'tools/list' }],
  ])('with %s, answers Invalid Request under its id, and keeps answering', async (_case, request) => {
    serve().write(`${JSON.stringify(request)}\n`);
    const answer = await serve().answer(request.id);

    expect(answer.error?.code).toBe(-32600);
    expect(answer.error?.message).toMatch(/^mcp-statechart serve could not read this request as a JSON-RPC 2\.0 message: /);
    serve().send({ id: 20, method: 'ping' });
    expect((await serve().answer(20)).result).toEqual({});
    await stderrSays(/the host sent a message serve could not read as JSON-RPC 2\.0 \(request id \S+\); it was answered with error -32600 and ignored/);
  }, 60_000);

  it('that is not JSON, answers Parse error without an id; stderr says so without the line', async () => {
    serve().write(`{"jsonrpc":"2.0","id":30,"method":"tools/list","params":{"key":"${SECRET_IN_LINE}"}\n`);
    const [answer] = await errorsWithoutId(1);

    expect(answer?.error?.code).toBe(-32700);
    expect(answer?.error?.message).toMatch(/^mcp-statechart serve could not read a line as JSON: /);
    await stderrSays(/the host sent a line that is not JSON; it was answered with error -32700 and ignored/);
    expect(serve().stderr()).not.toContain(SECRET_IN_LINE);
    serve().send({ id: 31, method: 'ping' });
    expect((await serve().answer(31)).result).toEqual({});
  }, 60_000);
});

/**
 * A 2025-era host's `logging/setLevel` through `serve` over stdio: a level MCP defines is taken
 * ({}); anything else is Invalid params (-32602, as JSON-RPC says of a request whose params are
 * wrong), in words naming the levels allowed, not Internal error (-32603) with a raw validation dump.
 * Real processes: serve (the CLI) and its fixture server.
 */
import { describe, expect, it } from 'vitest';
import { serveForEachTest } from './support/serve-each-test.js';

const LEVELS = '"debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"';

const serve = serveForEachTest();

describe('serve, asked by the host to set its log level', () => {
  it.each([
    ['a level MCP does not define', { level: 'bogus' }],
    ['no level', {}],
  ])('with %s, answers Invalid params naming the levels allowed, and takes a right one after', async (_case, params) => {
    serve().send({ id: 10, method: 'logging/setLevel', params });
    const answer = await serve().answer(10);

    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toContain(`logging/setLevel: level: `);
    expect(answer.error?.message).toContain(LEVELS);
    expect(answer.error?.message).not.toContain('\n');
    serve().send({ id: 11, method: 'logging/setLevel', params: { level: 'debug' } });
    expect((await serve().answer(11)).result).toEqual({});
  }, 60_000);
});

/**
 * `serve --http --metrics`: the names in `mcp.server.operation.duration` are the ones serve
 * serves. A host picks the method and tool names it sends; recorded as they came, every made-up
 * name was a new histogram series kept for the life of the replica, so one host could grow the
 * replica's memory and every scrape without bound. Made-up methods and tools are counted as
 * `_OTHER`, a refused prompt is not named. A real replica, a real 2026-07-28 host, raw HTTP for
 * the methods no client sends.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startEmptyReplica, type HttpServe } from './support/http-serve.js';

let replica: HttpServe & { close(): Promise<void> };
let host: Client;

beforeAll(async () => {
  replica = await startEmptyReplica('mcp-serve-metrics-names-', ['--metrics', '127.0.0.1:0']);
  host = new Client({ name: 'metrics-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await host.connect(new StreamableHTTPClientTransport(new URL(replica.url)));
}, 90_000);

afterAll(async () => {
  await host?.close();
  await replica?.close();
}, 60_000);

/** A 2026-07-28 request for a method of the host's choosing, as any HTTP client can send it. */
async function madeUpMethod(method: string): Promise<number> {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const answer = await fetch(replica.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: envelope } }),
    signal: AbortSignal.timeout(30_000),
  });
  await answer.text();
  return answer.status;
}

it('counts made-up methods, tools and prompts as _OTHER or not at all, and the tools it serves by name', async () => {
  const served = await host.callTool({ name: 'load_mcp', arguments: { server: 'ghost' } });
  expect(served.isError).toBe(true);
  for (const n of [1, 2, 3]) {
    const madeUp = await host.callTool({ name: `made-up-tool-${n}`, arguments: {} });
    expect(madeUp.isError).toBe(true);
    expect(await madeUpMethod(`made-up/method-${n}`)).toBe(404);
    await expect(host.getPrompt({ name: `made-up-prompt-${n}` })).rejects.toThrow(/Unknown prompt/);
  }

  const endpoint = /metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(replica.stderr())?.[1];
  expect(endpoint, replica.stderr()).toBeDefined();
  const scrape = await (await fetch(endpoint!, { signal: AbortSignal.timeout(30_000) })).text();
  const series = scrape.split('\n').filter((line) => line.startsWith('mcp_server_operation_duration_seconds_count'));
  expect(series.join('\n')).not.toContain('made-up');
  expect(series.some((line) => line.includes('gen_ai_tool_name="load_mcp"'))).toBe(true);
  expect(series.some((line) => line.includes('gen_ai_tool_name="_OTHER"'))).toBe(true);
  expect(series.some((line) => line.includes('mcp_method_name="_OTHER"'))).toBe(true);
  expect(series.some((line) => line.includes('mcp_method_name="prompts/get"'))).toBe(true);
}, 90_000);

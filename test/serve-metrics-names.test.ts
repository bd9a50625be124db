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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOtlpReceiver, type ExportedSpan } from '../scripts/otlp-receiver.js';
import { everythingStdio } from './support/everything.js';
import { hostileServer } from './support/hostile.js';
import { startEmptyReplica, startHttpServe, type HttpServe } from './support/http-serve.js';
import { postModern } from './support/modern-post.js';

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

/** The `_count` lines of `metric` in a scrape of the replica's `--metrics` listener. */
async function scraped(serve: HttpServe, metric: string): Promise<string[]> {
  const endpoint = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(serve.stderr())?.[1];
  expect(endpoint, serve.stderr()).toBeDefined();
  const scrape = await (await fetch(endpoint!, { signal: AbortSignal.timeout(30_000) })).text();
  return scrape.split('\n').filter((line) => line.startsWith(`${metric}_count`));
}

/** A 2026-07-28 request for a method of the host's choosing, as any HTTP client can send it. */
async function madeUpMethod(method: string, url = replica.url, id: string | number = 1): Promise<number> {
  const answer = await postModern(url, { method, id, clientName: 'raw' });
  await answer.text();
  return answer.status;
}

/**
 * The spans a `serve --http --otel` replica of the everything server exported while `use` talked to
 * it as a 2026-07-28 host; the replica is stopped (and must exit 0) before they are read.
 */
async function spansOfGateway(prefix: string, use: (spanHost: Client, gateway: HttpServe) => Promise<void>): Promise<ExportedSpan[]> {
  const home = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
  const receiver = await startOtlpReceiver();
  const gateway = await startHttpServe(home, ['--config', join(home, 'mcp.json')], ['--otel'], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' } });
  const spanHost = new Client({ name: 'span-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await spanHost.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    await use(spanHost, gateway);
    await spanHost.close();
    expect(await gateway.stop()).toBe(0);
    return receiver.spans;
  } finally {
    await spanHost.close();
    await gateway.stop();
    await receiver.close();
    rmSync(home, { recursive: true, force: true });
  }
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

  const series = await scraped(replica, 'mcp_server_operation_duration_seconds');
  expect(series.join('\n')).not.toContain('made-up');
  expect(series.some((line) => line.includes('gen_ai_tool_name="load_mcp"'))).toBe(true);
  expect(series.some((line) => line.includes('gen_ai_tool_name="_OTHER"'))).toBe(true);
  expect(series.some((line) => line.includes('mcp_method_name="_OTHER"'))).toBe(true);
  expect(series.some((line) => line.includes('mcp_method_name="prompts/get"'))).toBe(true);
}, 90_000);

it("names no prompt a downstream server refused in mcp.client.operation.duration, and still names the one it has", async () => {
  const home = mkdtempSync(join(tmpdir(), 'mcp-serve-metrics-prompts-'));
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
  const gateway = await startHttpServe(home, ['--config', join(home, 'mcp.json')], ['--metrics', '127.0.0.1:0']);
  const prompter = new Client({ name: 'prompt-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await prompter.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    expect((await prompter.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBe(false);
    const real = await prompter.getPrompt({ name: 'everything/simple-prompt' });
    expect(real.messages.length).toBeGreaterThan(0);
    for (const n of [1, 2]) await expect(prompter.getPrompt({ name: `everything/made-up-prompt-${n}` })).rejects.toThrow(/not found/);

    const series = await scraped(gateway, 'mcp_client_operation_duration_seconds');
    expect(series.filter((line) => line.includes('prompts/get'))).toHaveLength(2);
    expect(series.join('\n')).not.toContain('made-up');
    expect(series.some((line) => line.includes('gen_ai_prompt_name="simple-prompt"'))).toBe(true);
  } finally {
    await prompter.close();
    await gateway.stop();
    rmSync(home, { recursive: true, force: true });
  }
}, 90_000);

it('names no unlisted prompt in mcp.client.operation.duration when a broken server answers every name with a malformed {}', async () => {
  const home = mkdtempSync(join(tmpdir(), 'mcp-serve-metrics-malformed-'));
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { hostile: hostileServer('--empty-prompts') } }));
  const gateway = await startHttpServe(home, ['--config', join(home, 'mcp.json')], ['--metrics', '127.0.0.1:0']);
  const prompter = new Client({ name: 'prompt-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await prompter.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    expect((await prompter.callTool({ name: 'load_mcp', arguments: { server: 'hostile' } })).isError).toBe(false);
    await expect(prompter.getPrompt({ name: 'hostile/listed' })).rejects.toThrow();
    for (const n of [1, 2, 3]) await expect(prompter.getPrompt({ name: `hostile/invented-${n}` })).rejects.toThrow();

    const series = (await scraped(gateway, 'mcp_client_operation_duration_seconds')).filter((line) => line.includes('prompts/get'));
    expect(series.join('\n')).not.toContain('invented');
    expect(series.some((line) => line.includes('gen_ai_prompt_name="listed"'))).toBe(true);
    expect(series.some((line) => line.includes('gen_ai_prompt_name="_OTHER"'))).toBe(true);
  } finally {
    await prompter.close();
    await gateway.stop();
    rmSync(home, { recursive: true, force: true });
  }
}, 90_000);

it('names no span after a made-up tool, method or refused prompt, and names the tools and prompts it serves', async () => {
  const spans = await spansOfGateway('mcp-serve-span-names-', async (spanHost, gateway) => {
    expect((await spanHost.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBe(false);
    expect((await spanHost.getPrompt({ name: 'everything/simple-prompt' })).messages.length).toBeGreaterThan(0);
    expect((await spanHost.callTool({ name: 'made-up-tool', arguments: {} })).isError).toBe(true);
    await expect(spanHost.getPrompt({ name: 'everything/made-up-prompt' })).rejects.toThrow(/not found/);
    expect(await madeUpMethod('made-up/method', gateway.url)).toBe(404);
  });

  const served = spans.filter((span) => span.kind === 2).map((span) => span.name);
  expect(served).toContain('tools/call load_mcp');
  expect(served).toContain('prompts/get everything/simple-prompt');
  expect(served).toContain('tools/call');
  expect(served).toContain('prompts/get');
  expect(served.join('\n')).not.toContain('made-up');
  // Nor the gateway's CLIENT span for the prompt its server refused.
  expect(spans.map((span) => span.name).join('\n')).not.toContain('made-up');
}, 90_000);

it("carries no made-up method or refused prompt in a SERVER span's attributes, and no long or control-character string a host sent", async () => {
  const long = 'x'.repeat(100_000);
  const spans = await spansOfGateway('mcp-serve-span-attributes-', async (spanHost, gateway) => {
    expect((await spanHost.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBe(false);
    expect((await spanHost.getPrompt({ name: 'everything/simple-prompt' })).messages.length).toBeGreaterThan(0);
    await expect(spanHost.getPrompt({ name: 'everything/made-up-prompt' })).rejects.toThrow(/not found/);
    await expect(spanHost.getPrompt({ name: `everything/${long}\u0007\n` })).rejects.toThrow();
    expect(await madeUpMethod('made-up/method', gateway.url)).toBe(404);
    expect(await madeUpMethod('tools/list', gateway.url, `${long}\u001b[31m`)).toBe(200);
  });

  const served = spans.filter((span) => span.kind === 2);
  const attribute = (key: string) => served.map((span) => span.attributes.find((entry) => entry.key === key)?.value.stringValue as string | undefined);
  expect(attribute('mcp.method.name')).toContain('_OTHER');
  expect(attribute('gen_ai.prompt.name')).toEqual(expect.arrayContaining(['everything/simple-prompt']));
  const values = served.flatMap((span) => span.attributes.map((entry) => String(entry.value.stringValue ?? '')));
  expect(values.join('\n')).not.toContain('made-up');
  expect(values.filter((value) => value.length > 300)).toEqual([]);
  expect(values.filter((value) => /[\u0000-\u001f]/.test(value))).toEqual([]);
  // The long request id was recorded, cut.
  expect(attribute('jsonrpc.request.id').some((id) => id?.startsWith('xxxx'))).toBe(true);
}, 90_000);

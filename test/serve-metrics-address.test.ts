/**
 * `serve --metrics`: the address of the Prometheus endpoint is written to stderr (stdout carries
 * the protocol) in serve's own words, `mcp-statechart serve: metrics on <url>`, like its other
 * address lines, and answers a scrape. A real replica on 127.0.0.1, port 0 for both listeners.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmptyReplica, type HttpServe } from './support/http-serve.js';

let replica: HttpServe & { close(): Promise<void> };

beforeAll(async () => {
  replica = await startEmptyReplica('mcp-serve-metrics-address-', ['--metrics', '127.0.0.1:0']);
}, 90_000);

afterAll(async () => {
  await replica?.close();
}, 60_000);

it('writes the metrics address as serve writes its other addresses, and that address answers a scrape', async () => {
  const lines = replica.stderr().split('\n');
  const address = lines.find((line) => line.includes('/metrics'));
  expect(address, replica.stderr()).toMatch(/^mcp-statechart serve: metrics on http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  expect(lines.find((line) => line.includes('/mcp'))).toMatch(/^mcp-statechart serve: listening on /);
  const scrape = await fetch(address!.replace('mcp-statechart serve: metrics on ', ''), { signal: AbortSignal.timeout(30_000) });
  expect(scrape.status).toBe(200);
  await scrape.text();
}, 60_000);

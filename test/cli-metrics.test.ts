/**
 * `serve --metrics`: a real Prometheus (Debian's `prometheus`, which .ci/run installs), started by
 * the test on 127.0.0.1 with a 1 s scrape interval, scrapes serve's endpoint; its HTTP API then
 * returns the `mcp_client_operation_duration_seconds` buckets of the calls made through serve.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { answerText, callThroughServe, loadFixture, startServe, type ServeHost } from './support/serve-host.js';

const PROMETHEUS = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim();
if (!PROMETHEUS) console.warn('cli-metrics: skipped, the prometheus binary is not installed (apt-get install prometheus; .ci/run does)');

let serve: ServeHost | undefined;
let prometheus: ChildProcess | undefined;
afterEach(async () => {
  const running = prometheus;
  const gone = running && running.exitCode === null ? new Promise((resolve) => running.once('exit', resolve)) : undefined;
  running?.kill('SIGTERM');
  await gone;
  serve?.end();
  await serve?.exited;
  serve?.cleanUp();
  serve = undefined;
  prometheus = undefined;
});

/** A port free on 127.0.0.1 a moment ago (Prometheus takes its listen address only as a flag). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** Polls `read` every 250 ms until it returns a value, at most `timeoutMs`. */
async function eventually<T>(read: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

it.skipIf(!PROMETHEUS)('Prometheus scrapes serve --metrics and returns mcp_client_operation_duration_seconds buckets for the calls made', async () => {
  serve = startServe(undefined, { serveFlags: ['--metrics', '127.0.0.1:0'] });
  const host = serve;
  const endpoint = await eventually(() => /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(host.stderr())?.[1], 30_000, `serve's metrics address; stderr: ${host.stderr()}`);
  await loadFixture(serve);
  for (const id of [10, 11]) {
    callThroughServe(serve, id, 'fixture', 'echo', { text: `call ${id}` });
    expect(answerText(await serve.answer(id))).toContain(`call ${id}`);
  }

  const target = new URL(endpoint).host;
  const folder = join(serve.home, 'prometheus');
  mkdirSync(folder);
  writeFileSync(join(folder, 'prometheus.yml'), `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: gateway\n    static_configs:\n      - targets: ['${target}']\n`);
  const web = await freePort();
  prometheus = spawn(PROMETHEUS, [
    `--config.file=${join(folder, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(folder, 'data')}`,
    `--web.listen-address=127.0.0.1:${web}`,
  ], { stdio: 'ignore' });

  const query = encodeURIComponent('mcp_client_operation_duration_seconds_bucket{gen_ai_tool_name="echo"}');
  const buckets = await eventually(async () => {
    const answer = await fetch(`http://127.0.0.1:${web}/api/v1/query?query=${query}`).catch(() => undefined);
    if (!answer?.ok) return undefined;
    const body = (await answer.json()) as { data: { result: Sample[] } };
    return body.data.result.length > 0 ? body.data.result : undefined;
  }, 45_000, 'Prometheus to have scraped the echo calls');

  const byBound = new Map(buckets.map((sample) => [sample.metric.le, Number(sample.value[1])]));
  expect([...byBound.keys()].sort()).toEqual(['+Inf', '0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1', '10', '120', '2', '30', '300', '5', '60'].sort());
  expect(byBound.get('+Inf')).toBe(2);
  expect(buckets[0]!.metric).toMatchObject({ job: 'gateway', mcp_method_name: 'tools/call', network_transport: 'pipe' });
}, 120_000);

/**
 * Part 8 of the bench: `serve --http` as a team gateway (issue #27). 50 concurrent hosts call
 * server-everything's `echo` through `call_mcp_tool` on 1 and on 3 replicas behind HAProxy
 * (docs/deploy/haproxy.cfg as written: round-robin, no stickiness), side by side with one host
 * calling stdio `serve` with the same 50 calls in flight and the raw v2 client calling the server
 * directly; the cost of `--gateway` (bearer token of one of 50 identities, policy) with `--audit`
 * against a replica with neither; the resident memory of each replica.
 *
 * All on 127.0.0.1, in a temporary HOME that is every process's working folder, every process
 * ended on exit or Ctrl-C (bench/lib/gateway-fleet.ts).
 * The variants run interleaved round by round in a rotating order; throughput ratios are medians
 * of the per-round ratios, latencies are pooled over the measured rounds.
 *
 * Run alone: npx tsx bench/parts/gateway.ts [--quick] [--no-legacy]   (needs the haproxy binary)
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchModuleCommand } from '../lib/children.js';
import { Fleet, type Replica } from '../lib/gateway-fleet.js';
import { closeHosts, legacyHttpHost, modernHttpHost, rawHost, runBatch, stdioServeHost, SERVER, type Batch, type Host } from '../lib/gateway-hosts.js';
import { rssOf, treeUsage } from '../lib/proc-tree.js';
import { emitRows, hasFlag, isMet, progress, ratioTarget, type BenchRow } from '../lib/report.js';
import { everythingStdio } from '../../test/support/everything.js';
import { formatBytes, formatMicros, formatRate, median, percentile, roundOrder } from '../lib/stats.js';

const quick = hasFlag('quick');
const HOSTS = 50;
const ROUNDS = quick ? 1 : 3;
const CALLS_PER_BATCH = quick ? 50 : 300;
const WARM_UP_CALLS = quick ? 10 : 100;
/** The whole part, bounded: past this the part stops, ends its processes and fails. */
const PART_LIMIT_MS = quick ? 8 * 60_000 : 20 * 60_000;
/** Issue #27: what --gateway auth + policy and --audit add to a call on one replica, at 50 concurrent hosts. */
const GATEWAY_COST_TARGET = ratioTarget('<=', 1.15);

type VariantKey = 'raw' | 'stdio' | 'one' | 'oneGateway' | 'three' | 'threeLegacy';

interface Variant {
  key: VariantKey;
  hosts: Host[];
  /** Replica processes whose memory is sampled after each batch. */
  replicas: Replica[];
}

const HAPROXY = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();

function tokenOf(host: number): string {
  return `bench-host-${host}-${randomBytes(12).toString('hex')}`;
}

const digest = (token: string) => `sha256:${createHash('sha256').update(token).digest('hex')}`;

/** 50 identities, one per host, each with a policy to check on every call (and a rate limit it never reaches). */
function gatewayFile(tokens: string[]): object {
  const identities: Record<string, object> = {};
  tokens.forEach((token, index) => {
    identities[`host-${index + 1}`] = { token: digest(token), deny: ['secret*'], denyTools: [`${SERVER}/get-sum`], callsPerMinute: 1_000_000 };
  });
  return { identities };
}

async function connectHosts(count: number, connect: (index: number) => Promise<Host>): Promise<Host[]> {
  const hosts: Host[] = [];
  // A few at a time: 50 handshakes at once on a loaded machine would only measure the queue.
  for (let start = 0; start < count; start += 10) {
    hosts.push(...(await Promise.all(Array.from({ length: Math.min(10, count - start) }, (_, offset) => connect(start + offset)))));
  }
  return hosts;
}

interface Measured {
  batches: Partial<Record<VariantKey, Batch[]>>;
  peakRss: Map<number, number>;
  stdioServePid: number;
}

function latencyText(batches: Batch[]): string {
  const latencies = batches.flatMap((batch) => batch.latencies);
  const at = (fraction: number) => percentile(latencies, fraction).toFixed(fraction === 0.5 ? 1 : 0);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms`;
}

/** Calls answered per second in one batch: a call that failed fast must not raise the rate. */
const answeredRate = (batch: Batch) => (batch.latencies.length * 1000) / batch.ms;

function rateOf(batches: Batch[]): number {
  return median(batches.map(answeredRate));
}

const LABELS: Record<VariantKey, string> = {
  raw: `the raw v2 client on server-everything over stdio, ${HOSTS} calls in flight`,
  stdio: `stdio serve, one host (2025-era v1 client), ${HOSTS} calls in flight`,
  one: `serve --http, 1 replica behind HAProxy, ${HOSTS} v2 hosts (2026-07-28)`,
  oneGateway: `serve --http --gateway --audit, 1 replica behind HAProxy, ${HOSTS} v2 hosts with their own bearer tokens`,
  three: `serve --http, 3 replicas behind HAProxy, ${HOSTS} v2 hosts (2026-07-28)`,
  threeLegacy: `serve --http, 3 replicas behind HAProxy, ${HOSTS} 2025-era v1 hosts (sealed sessions)`,
};

function rows(measured: Measured, replicasOf: Map<VariantKey, Replica[]>): BenchRow[] {
  const { batches } = measured;
  const failedText = (key: VariantKey) => {
    const failed = batches[key]!.reduce((sum, batch) => sum + batch.failed, 0);
    return failed === 0 ? '' : `; ${failed} of ${batches[key]!.length * CALLS_PER_BATCH} calls FAILED`;
  };
  const figures = (key: VariantKey) => `${formatRate(rateOf(batches[key]!))}; ${latencyText(batches[key]!)}${failedText(key)}`;
  const failureNote = (...keys: VariantKey[]) => {
    const notes = keys.flatMap((key) => batches[key]!.filter((batch) => batch.failed > 0).map((batch) => `${key}: ${batch.failed} failed, first: ${batch.firstFailure}`));
    return notes.length === 0 ? {} : { note: notes.join('; ') };
  };
  /** Median over rounds of (calls answered per second of `key`) / (those of `baseline`). */
  const rateRatio = (key: VariantKey, baseline: VariantKey) => median(batches[key]!.map((batch, round) => answeredRate(batch) / answeredRate(batches[baseline]![round]!)));
  const data = (key: VariantKey) => ({
    callsPerSecond: rateOf(batches[key]!),
    p50Ms: percentile(batches[key]!.flatMap((batch) => batch.latencies), 0.5),
    p95Ms: percentile(batches[key]!.flatMap((batch) => batch.latencies), 0.95),
    p99Ms: percentile(batches[key]!.flatMap((batch) => batch.latencies), 0.99),
    roundsMs: batches[key]!.map((batch) => batch.ms),
    failedPerRound: batches[key]!.map((batch) => batch.failed),
  });
  const keys = (Object.keys(LABELS) as VariantKey[]).filter((key) => batches[key]);
  const result: BenchRow[] = [];
  const compare = (key: VariantKey, baseline: VariantKey, id: string) =>
    result.push({
      part: 'gateway',
      id,
      benchmark: `Gateway: ${LABELS[key]}, call_mcp_tool → echo (${ROUNDS} × ${CALLS_PER_BATCH} calls), throughput vs ${baseline === 'raw' ? 'raw' : LABELS[baseline]}`,
      ours: figures(key),
      baseline: figures(baseline),
      ratio: rateRatio(key, baseline),
      data: { ours: data(key), baseline: data(baseline) },
      ...failureNote(key, baseline),
    });
  for (const key of keys.filter((candidate) => candidate !== 'raw' && candidate !== 'oneGateway')) compare(key, 'raw', `gateway.${key}.vs-raw`);
  compare('one', 'stdio', 'gateway.one.vs-stdio');
  compare('three', 'one', 'gateway.three.vs-one');

  const perCall = (key: VariantKey) => 1_000_000 / rateOf(batches[key]!);
  const costRatio = median(batches.oneGateway!.map((batch, round) => answeredRate(batches.one![round]!) / answeredRate(batch)));
  result.push({
    part: 'gateway',
    id: 'gateway.auth-policy-audit',
    benchmark: `Gateway: cost per call of --gateway (bearer token of 1 of ${HOSTS} identities, policy) + --audit, 1 replica behind HAProxy, ${HOSTS} hosts, vs neither`,
    ours: `${formatMicros(perCall('oneGateway'))}; ${latencyText(batches.oneGateway!)}${failedText('oneGateway')}`,
    baseline: `${formatMicros(perCall('one'))}; ${latencyText(batches.one!)}${failedText('one')}`,
    ratio: costRatio,
    target: GATEWAY_COST_TARGET,
    met: isMet(GATEWAY_COST_TARGET, perCall('oneGateway'), costRatio),
    data: { ours: data('oneGateway'), baseline: data('one') },
    ...failureNote('oneGateway', 'one'),
  });

  const replicaRss = [...replicasOf.values()].flat().map((replica) => measured.peakRss.get(replica.child.pid!) ?? 0);
  const treeRss = [...replicasOf.values()].flat().map((replica) => treeUsage(replica.child.pid!).rssBytes);
  const stdioRss = measured.peakRss.get(measured.stdioServePid) ?? 0;
  result.push({
    part: 'gateway',
    id: 'gateway.memory.replica',
    benchmark: `Gateway: resident memory per serve --http replica (peak after each batch; median of ${replicaRss.length} replicas) vs stdio serve`,
    ours: `${formatBytes(median(replicaRss))} (max ${formatBytes(Math.max(...replicaRss))}); with its server-everything ${formatBytes(median(treeRss))}`,
    baseline: formatBytes(stdioRss),
    ratio: median(replicaRss) / stdioRss,
    data: { replicaRssBytes: replicaRss, replicaWithServerRssBytes: treeRss, stdioServeRssBytes: stdioRss },
  });
  return result;
}

async function main(): Promise<void> {
  if (!HAPROXY) throw new Error('the gateway part needs the haproxy binary (apt-get install haproxy; .ci/run installs it)');
  const home = mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-gateway-'));
  const config = path.join(home, 'mcp.json');
  const keyFile = path.join(home, 'session-keys.txt');
  const gatewayJson = path.join(home, 'gateway.json');
  const tokens = Array.from({ length: HOSTS }, (_, index) => tokenOf(index + 1));
  writeFileSync(config, JSON.stringify({ mcpServers: { [SERVER]: everythingStdio() } }));
  writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`);
  writeFileSync(gatewayJson, JSON.stringify(gatewayFile(tokens)));
  const fleet = new Fleet(home, config);
  const limit = setTimeout(() => {
    process.stderr.write(`  gateway bench: over its ${PART_LIMIT_MS / 60_000} minutes, stopping\n`);
    void fleet.close().finally(() => process.exit(1));
  }, PART_LIMIT_MS);
  const variants: Variant[] = [];
  try {
    // The deploy path: the replicas share the manifest index, so a call on a fresh replica finds the server.
    await fleet.runCli(['index']);
    const sessionKey = ['--session-key-file', keyFile];
    progress('gateway: starting stdio serve, 5 serve --http replicas and 3 HAProxy instances');
    const one = await fleet.replica(sessionKey);
    const oneGateway = await fleet.replica([...sessionKey, '--gateway', gatewayJson, '--audit', path.join(home, 'audit.log')]);
    const three = [await fleet.replica(sessionKey), await fleet.replica(sessionKey), await fleet.replica(sessionKey)];
    const [oneUrl, oneGatewayUrl, threeUrl] = [
      (await fleet.balancer(HAPROXY, [one])).url,
      (await fleet.balancer(HAPROXY, [oneGateway])).url,
      (await fleet.balancer(HAPROXY, three)).url,
    ];
    const serveCommand = benchModuleCommand('serve-cli');
    const stdioHost = await stdioServeHost({
      command: serveCommand.command,
      args: [...serveCommand.args, '--config', config, 'serve'],
      cwd: home,
      env: { HOME: home, PATH: process.env.PATH ?? '' },
    });
    variants.push(
      { key: 'raw', hosts: [await rawHost(home)], replicas: [] },
      { key: 'stdio', hosts: [stdioHost], replicas: [] },
      { key: 'one', hosts: await connectHosts(HOSTS, () => modernHttpHost(oneUrl)), replicas: [one] },
      { key: 'oneGateway', hosts: await connectHosts(HOSTS, (index) => modernHttpHost(oneGatewayUrl, tokens[index])), replicas: [oneGateway] },
      { key: 'three', hosts: await connectHosts(HOSTS, () => modernHttpHost(threeUrl)), replicas: three },
    );
    if (!hasFlag('no-legacy')) variants.push({ key: 'threeLegacy', hosts: await connectHosts(HOSTS, () => legacyHttpHost(threeUrl)), replicas: three });

    const measured: Measured = { batches: {}, peakRss: new Map(), stdioServePid: stdioHost.pid };
    const sampleMemory = () => {
      for (const pid of [stdioHost.pid, one, oneGateway, ...three].map((entry) => (typeof entry === 'number' ? entry : entry.child.pid!))) {
        measured.peakRss.set(pid, Math.max(measured.peakRss.get(pid) ?? 0, rssOf(pid)));
      }
    };
    progress(`gateway: warm-up, ${WARM_UP_CALLS} calls per variant`);
    for (const variant of variants) await runBatch(variant.hosts, WARM_UP_CALLS, HOSTS, `${variant.key}-warm`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of roundOrder(variants, round)) {
        const batch = await runBatch(variant.hosts, CALLS_PER_BATCH, HOSTS, `${variant.key}-${round}`);
        (measured.batches[variant.key] ??= []).push(batch);
        sampleMemory();
        progress(`gateway: round ${round + 1}/${ROUNDS} ${variant.key}: ${formatRate(answeredRate(batch))}${batch.failed > 0 ? `, ${batch.failed} failed` : ''}`);
      }
    }
    emitRows(
      rows(
        measured,
        new Map<VariantKey, Replica[]>([
          ['one', [one]],
          ['oneGateway', [oneGateway]],
          ['three', three],
        ]),
      ),
    );
  } finally {
    clearTimeout(limit);
    for (const variant of variants) await closeHosts(variant.hosts);
    await fleet.close();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();

/**
 * Lazy child, the reference: one raw v2 SDK client connects to the one server the agent uses and
 * calls its echo tool, on the era it knows the server speaks. `--era legacy` (the default): the
 * `initialize` handshake and nothing else. `--era modern --prior FILE`: the `server/discover`
 * answer an earlier run saved (`connect({ prior })`, no probe, no round trip); `--save-prior FILE`
 * is that earlier run, which connects pinned to 2026-07-28 (the SDK probes on a sibling process)
 * and saves the answer.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Client, type DiscoverResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { argValue } from '../lib/report.js';
import { MODERN_REVISION, readJob, reportFirstResult } from '../lib/lazy-protocol.js';

const job = readJob();
const config = job.servers[job.use]!;
const modern = argValue('era') === 'modern';
const priorFile = argValue('prior');
const savePriorTo = argValue('save-prior');
const prior = priorFile ? { kind: 'modern' as const, discover: JSON.parse(readFileSync(priorFile, 'utf8')) as DiscoverResult } : undefined;

const startedAt = performance.now();
const client = new Client(
  { name: 'bench-raw', version: '1.0.0' },
  { capabilities: {}, versionNegotiation: { mode: modern ? { pin: MODERN_REVISION } : 'legacy' } },
);
await client.connect(new StdioClientTransport({ command: config.command!, args: config.args ?? [], stderr: 'ignore' }), prior ? { prior } : {});
const result = await client.callTool({ name: 'echo', arguments: { text: 'first result' } });
const content = result.content as Array<{ type: string; text?: string }>;
await reportFirstResult(startedAt, content[0]?.text ?? '');
if (savePriorTo) writeFileSync(savePriorTo, JSON.stringify(client.getDiscoverResult()));
await client.close();

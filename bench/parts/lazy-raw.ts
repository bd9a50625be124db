/** Lazy child, the reference: one raw SDK client connects to the one server the agent uses and calls its echo tool. */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readJob, reportFirstResult } from '../lib/lazy-protocol.js';

const job = readJob();
const config = job.servers[job.use]!;

const startedAt = performance.now();
const client = new Client({ name: 'bench-raw', version: '1.0.0' }, { capabilities: {} });
await client.connect(new StdioClientTransport({ command: config.command!, args: config.args ?? [], stderr: 'ignore' }));
const result = await client.callTool({ name: 'echo', arguments: { text: 'first result' } });
const content = result.content as Array<{ type: string; text?: string }>;
await reportFirstResult(startedAt, content[0]?.text ?? '');
await client.close();

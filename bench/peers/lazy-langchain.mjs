// Lazy child, the peer: LangChain's MultiServerMCPClient with every configured server, as its
// README uses it (getTools connects every server), then the agent calls one server's echo tool.
// Plain JavaScript run by plain node, so it resolves @langchain/* from bench/peers/node_modules.
// Speaks the protocol of bench/lib/lazy-protocol.ts.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';

const job = JSON.parse(readFileSync(process.argv[process.argv.indexOf('--job') + 1], 'utf8'));
const mcpServers = {};
for (const [name, config] of Object.entries(job.servers)) {
  mcpServers[name] = { transport: 'stdio', command: config.command, args: config.args ?? [], stderr: 'ignore' };
}

const startedAt = performance.now();
const client = new MultiServerMCPClient({ mcpServers, onConnectionError: 'throw' });
const tools = await client.getTools(job.use);
const echo = tools.find((tool) => tool.name === 'echo');
if (!echo) throw new Error(`no echo tool among ${tools.map((tool) => tool.name).join(', ')}`);
const result = await echo.invoke({ text: 'first result' });
const now = performance.now();
const text = typeof result === 'string' ? result : JSON.stringify(result);
process.stdout.write(`@@first-result ${JSON.stringify({ firstResultMs: now - startedAt, sinceProcessStartMs: now, text })}\n`);
await new Promise((resolve) => {
  process.stdin.once('data', resolve);
  process.stdin.once('end', resolve);
  process.stdin.resume();
});
process.stdin.destroy();
await client.close();

/**
 * Lazy child, ours: 50 (or 10,000) configured servers, the agent loads one and calls its echo tool
 * through the loader tools (load_mcp + call_mcp_tool). With --manager-only: the same through
 * `manager.configure` + `connect` + `callTool`, without the loader tools.
 * With `--index FILE` the loader tools keep their manifest index there, as a user's home keeps
 * it between runs (an earlier run's connect recorded the server's manifest and era); without it
 * every run starts with an empty index in a folder of its own, as on a fresh home. With both
 * flags the manager records into that index itself (`recordManifests`, as an embedder keeping a
 * home does), so it too finds the era an earlier run recorded.
 */
import { performance } from 'node:perf_hooks';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type LoaderServers } from '../../src/index.js';
import { recordManifests } from '../../src/manifest-index/index.js';
import { readJob, reportFirstResult, startWindowProfile } from '../lib/lazy-protocol.js';
import { argValue } from '../lib/report.js';
import { temporaryManifestIndex } from '../lib/temporary-index.js';

const job = readJob();
const managerOnly = process.argv.includes('--manager-only');
const indexFile = argValue('index');
const manifestIndex = indexFile ? new ManifestIndex({ path: indexFile }) : temporaryManifestIndex();
const servers: LoaderServers = {};
for (const [name, config] of Object.entries(job.servers)) servers[name] = { config, description: `Fixture server ${name}` };

async function throughLoaderTools(manager: McpConnectionManager, startedAt: number) {
  const tools = createLoaderTools({ manager, servers, manifestIndex });
  const load = tools.find((tool) => tool.name === 'load_mcp')!;
  const call = tools.find((tool) => tool.name === 'call_mcp_tool')!;
  const toolsReadyMs = performance.now() - startedAt;
  const loaded = await load.execute({ server: job.use });
  if (loaded.isError) throw new Error(loaded.text);
  const loadedMs = performance.now() - startedAt;
  const result = await call.execute({ server: job.use, tool: 'echo', arguments: { text: 'first result' } });
  if (result.isError) throw new Error(result.text);
  return { text: result.text, phases: { toolsReadyMs, loadedMs } };
}

async function throughManager(manager: McpConnectionManager, startedAt: number) {
  manager.configure(job.servers);
  if (indexFile) recordManifests(manager, manifestIndex, job.servers);
  const configuredMs = performance.now() - startedAt;
  await manager.connect(job.use);
  const loadedMs = performance.now() - startedAt;
  const result = await manager.callTool(job.use, 'echo', { text: 'first result' });
  const content = result.content as Array<{ type: string; text?: string }>;
  return { text: content[0]?.text ?? '', phases: { configuredMs, loadedMs } };
}

const stopProfile = await startWindowProfile();
const startedAt = performance.now();
const manager = new McpConnectionManager({ logger: silentLogger });
const { text, phases } = managerOnly ? await throughManager(manager, startedAt) : await throughLoaderTools(manager, startedAt);
await stopProfile();
await reportFirstResult(startedAt, text, phases);
await manager.dispose();
// What the connect recorded (manifest and era) is on disk before the process ends.
await manifestIndex.flush();

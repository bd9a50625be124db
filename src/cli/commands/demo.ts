import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { discoverMcpServers, enabledServers } from '../../config/index.js';
import { ManifestIndex } from '../../manifest-index/index.js';
import type { McpConnectionManagerOptions } from '../../manager.js';
import type { LoaderToolResult } from '../../tools/index.js';
import { createLoaderTools, toFunctionDefinitions } from '../../tools/index.js';
import { livingProcesses } from '../../transports/process-group.js';
import { openLifecycleView } from '../lifecycle-view.js';
import { sayCancelled } from '../cancel-on-interrupt.js';
import { beforeEarlyEnd, endEarly } from '../early-end.js';
import { INTERRUPTED_EXIT_CODE } from '../exit-codes.js';
import { CliError } from '../json-codes.js';
import { cliLogger } from '../logger.js';
import { packageRoot } from '../package-root.js';
import { openLoaderSession } from '../session.js';
import type { GlobalOptions } from '../options.js';
import { writeListing } from '../terminal-text.js';
import { waitForServerState } from '../wait-for-state.js';
import { writeRefusal } from '../write-refusal.js';

/** The token threshold the demo shows the exposure decision for, unless --exposure gives one: about twice the loader tools. */
const DEMO_THRESHOLD_TOKENS = 1_000;

/** Short enough that the demo shows an idle disconnect within seconds. */
const DEMO_IDLE_TIMEOUT_MS = 2_500;

interface WeatherServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * `demo`: a scripted agent session on the config shipped in the package (examples/mcp.json):
 * one stdio server and one Streamable HTTP server started here on 127.0.0.1. It goes through
 * the loader tools as a model would, and prints every lifecycle transition as it happens. Its
 * manifest index is a temporary one, removed at the end: the demo's servers never enter the
 * user's index (~/.ai-zen/mcp-index.json), whose entries of the same names stay as they are.
 */
export async function runDemo(
  options: GlobalOptions,
  managerOptions: McpConnectionManagerOptions = {},
  { view = false }: { view?: boolean } = {},
): Promise<void> {
  const started = Date.now();
  const stamp = () => `+${((Date.now() - started) / 1000).toFixed(3)}s`.padStart(9);
  const say = (line = '') => writeListing(line);
  const event = (line: string) => say(`${stamp()}  ${line}`);
  const step = (title: string) => say(`\n${title}`);
  const show = (label: string, result: LoaderToolResult, maxLines = 6) => {
    const lines = result.text.split('\n');
    const shown = lines.slice(0, maxLines).map((line) => `      ${line}`);
    if (lines.length > maxLines) shown.push(`      … ${lines.length - maxLines} more lines`);
    say(`   ${label}${result.isError ? ' (error)' : ''}:`);
    say(shown.join('\n'));
  };

  // Made before the weather server listens: a refusal after it would leave that server holding the process open.
  const indexFolder = temporaryIndexFolder();
  const root = packageRoot();
  const configFile = join(root, 'examples', 'mcp.json');
  const weatherModule = (await import(pathToFileURL(join(root, 'examples', 'servers', 'weather-server.mjs')).href)) as {
    startWeatherServer(port?: number): Promise<WeatherServer>;
  };
  const weather = await weatherModule.startWeatherServer(0);
  const logger = cliLogger(options.verbose);
  const discovery = await discoverMcpServers({
    configPaths: [configFile],
    env: {
      ...process.env,
      MCP_STATECHART_NODE: process.execPath,
      MCP_STATECHART_EXAMPLES: join(root, 'examples'),
      MCP_STATECHART_WEATHER_PORT: String(weather.port),
    },
    logger,
  });

  const manifestIndex = new ManifestIndex({ path: join(indexFolder, 'mcp-index.json') });
  // Ended early (Ctrl-C, `demo | head`: early-end.ts), the demo still removes its index.
  const removeIndex = async () => {
    // Index writes run in the background: one still under way would create the folder again.
    await manifestIndex.flush().catch(() => {});
    rmSync(indexFolder, { recursive: true, force: true });
  };
  const forgetEarlyEnd = beforeEarlyEnd(removeIndex);
  // Said as every command says it: at a "Press Enter" question (--view) it also ends the question's line.
  const interrupted = () => {
    sayCancelled(false);
    void endEarly(INTERRUPTED_EXIT_CODE);
  };
  process.once('SIGINT', interrupted);

  say('mcp-statechart demo: a scripted agent session through the loader tools');
  say(`config: ${configFile}`);
  say('manifest index: a temporary one for this demo, removed at the end (your ~/.ai-zen is left alone)');
  for (const server of Object.values(discovery.servers)) {
    say(`   ${server.name.padEnd(9)} ${server.transport.padEnd(6)} ${server.disabled ? 'disabled' : 'enabled '}  ${server.description ?? ''}`);
  }
  event(`weather server listening on ${weather.url} (Streamable HTTP, 127.0.0.1)`);

  const { manager, tool, tools } = openLoaderSession(
    discovery,
    options,
    logger,
    { ...managerOptions, defaults: { idleTimeoutMs: DEMO_IDLE_TIMEOUT_MS } },
    { manifestIndex },
  );
  const lastState = new Map<string, string>();
  manager.on('mcp.stateChanged', ({ server, state, error }) => {
    const before = lastState.get(server);
    lastState.set(server, state);
    // A change of substate within one state (connecting.negotiating → connecting.listing) is no line here.
    if (before === undefined || before === state) return;
    event(`[${server}] ${before} → ${state}${error ? `  (${error.message.split('\n')[0]})` : ''}`);
  });
  manager.on('mcp.manifestChanged', ({ server, changes }) => {
    const parts = [...changes.added.map((key) => `+${key}`), ...changes.removed.map((key) => `-${key}`), ...changes.changed.map((key) => `~${key}`)];
    event(`[${server}] manifest changed: ${parts.join(' ')}`);
  });

  const lifecycleView = view ? await openLifecycleView(manager, process.stdin.isTTY === true, discovery.servers) : undefined;

  const load = tool('load_mcp')!;
  const call = tool('call_mcp_tool')!;
  const read = tool('read_mcp_resource')!;
  try {
    // Three tools: search_mcp_tools comes once an index holds manifests, and the demo's starts empty.
    const loaderBytes = JSON.stringify(toFunctionDefinitions(tools)).length;
    step('1. What the model sees: the loader tools instead of every tool of every server');
    say(`   ${tools.map((loader) => loader.name).join(', ')}: ${loaderBytes} bytes (~${Math.round(loaderBytes / 4)} tokens)`);
    say(`   exposure: ${tools.exposure.mode} (${tools.exposure.reason})`);

    step('2. The model calls load_mcp { server: "notes" }: the stdio server starts only now');
    const notes = await load.execute({ server: 'notes' });
    const manifest = notes.data as { tools: Array<{ name: string }>; resources: Array<{ uri: string }> };
    say(`   tools: ${manifest.tools.map((entry) => entry.name).join(', ')}; resources: ${manifest.resources.map((entry) => entry.uri).join(', ')}`);

    step('3. call_mcp_tool { server: "notes", tool: "search_notes", arguments: { query: "registry" } }');
    show('result', await call.execute({ server: 'notes', tool: 'search_notes', arguments: { query: 'registry' } }));

    step('4. read_mcp_resource { server: "notes", uri: "notes://all" }');
    show('contents', await read.execute({ server: 'notes', uri: 'notes://all' }));

    step('5. A tool appears at run time: the server sends list_changed, the manifest refreshes');
    const manifestChanged = new Promise<void>((done) => {
      const stop = manager.on('mcp.manifestChanged', () => {
        stop();
        done();
      });
    });
    show('result', await call.execute({ server: 'notes', tool: 'enable_archive', arguments: {} }));
    await manifestChanged;
    show('archive_note, just added', await call.execute({ server: 'notes', tool: 'archive_note', arguments: { id: 2 } }));

    step('6. A second server, over Streamable HTTP');
    await load.execute({ server: 'weather' });
    show('get_forecast', await call.execute({ server: 'weather', tool: 'get_forecast', arguments: { city: 'Lisbon' } }));
    // Both servers' tools are known now: the threshold rule would choose between the two exposures on their byte counts.
    const exposure = options.exposure ?? { thresholdTokens: DEMO_THRESHOLD_TOKENS };
    const decision = createLoaderTools({ manager, servers: discovery.servers, manifestIndex, exposure }).exposure;
    say(`   registering these servers' tools up front would cost ${decision.directBytes} bytes (~${decision.directTokens} tokens); the loader tools cost ${decision.loaderBytes}`);
    say('   (search_mcp_tools among them now that the index holds manifests), plus one line per configured server,');
    say('   however many tools those servers have (larger setups: BENCHMARKS.md).');
    say(`   --exposure ${typeof exposure === 'object' ? exposure.thresholdTokens : exposure} would now choose ${decision.mode}: ${decision.reason}.`);

    step('7. The notes server is killed (kill -9): the chart sees the loss and reconnects after its 1 s backoff');
    const info = await call.execute({ server: 'notes', tool: 'server_info', arguments: {} });
    const { pid } = JSON.parse(info.text) as { pid: number };
    const lost = waitForServerState(manager, 'notes', 'error');
    event(`kill -9 ${pid}`);
    process.kill(pid, 'SIGKILL');
    await lost;
    await waitForServerState(manager, 'notes', 'connected');
    show('search_notes after the reconnect', await call.execute({ server: 'notes', tool: 'search_notes', arguments: { query: 'coffee' } }));

    step(`8. Idle timeout (shortened to ${DEMO_IDLE_TIMEOUT_MS / 1000} s for the demo): unused servers disconnect by themselves`);
    await Promise.all([waitForServerState(manager, 'notes', 'disconnected'), waitForServerState(manager, 'weather', 'disconnected')]);
    show('call_mcp_tool on an idle server', await call.execute({ server: 'weather', tool: 'list_cities', arguments: {} }), 2);

    step('9. disconnectAll()');
  } finally {
    await manager.dispose();
    await weather.close();
    await lifecycleView?.close();
    process.off('SIGINT', interrupted);
    forgetEarlyEnd();
    await removeIndex();
  }
  event(`all servers disconnected; server processes left: ${serverProcessesLeft(join(root, 'examples', 'servers'))}`);
  say(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s. Enabled servers in this config: ${Object.keys(enabledServers(discovery.servers)).join(', ')}.`);
}

function temporaryIndexFolder(): string {
  try {
    return mkdtempSync(join(tmpdir(), 'mcp-statechart-demo-index-'));
  } catch (error) {
    const refusal = writeRefusal(error);
    if (!refusal) throw error;
    throw new CliError('WRITE_FAILED', `could not make the demo's temporary manifest index in ${tmpdir()}: ${refusal.reason}. Set TMPDIR to a folder you may write, then run the demo again.`);
  }
}

/**
 * Processes still running a demo server, found by command line (an orphan has no parent to find it
 * by) and by this run's HOME, which every server inherits: another demo's or program's servers
 * under another HOME (tests run side by side, each with its own) are not this run's leftovers.
 */
function serverProcessesLeft(serversFolder: string): number | string {
  if (process.platform !== 'linux') return 'not checked on this platform';
  // Without a HOME the servers inherit none either: every demo server counts then.
  const ownHome = process.env.HOME === undefined ? undefined : `HOME=${process.env.HOME}`;
  return livingProcesses().filter((entry) => {
    try {
      if (!readFileSync(`/proc/${entry.pid}/cmdline`, 'utf8').includes(serversFolder)) return false;
      return ownHome === undefined || readFileSync(`/proc/${entry.pid}/environ`, 'utf8').split('\0').includes(ownHome);
    } catch {
      return false;
    }
  }).length;
}

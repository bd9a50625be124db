/**
 * The manifest index keeps each server's instructions (what `initialize` or `server/discover`
 * said the server is for), so search ranks and describes a server it knows only from the index
 * as it does a connected one. What is kept is bounded: control characters shown escaped, at most
 * MAX_PURPOSE_CHARACTERS characters. An index file written before instructions were kept loads.
 * The servers are real processes: server-everything (2025 era, instructions in `initialize`) and
 * the 2026-07-28 fixture (instructions in `server/discover`).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type LoaderServers, type LoaderTool } from '../src/index.js';
import { recordManifests } from '../src/entries/config.js';
import { MAX_PURPOSE_CHARACTERS } from '../src/text-limits.js';
import { EVERYTHING_SCRIPT } from './support/everything.js';
import { runInProcess } from './support/in-process-cli.js';
import type { McpServerConfig, McpServerManifest } from '../machines/types.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const LIGHTHOUSE = "Keeps the lighthouse keeper's logbook.\nTides, storms and ships sighted, by date.";
// C0 (escape, bell, carriage return), DEL, C1, line separator and the bidi overrides and isolates.
const CONTROL_CHARACTERS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

type Answer = {
  tools: Array<{ server: string; tool: string }>;
  servers: Array<{ server: string; description?: string; connected: boolean }>;
};

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

function indexPath(): string {
  return path.join(os.homedir(), '.ai-zen', 'mcp-index.json');
}

function modernWithInstructions(instructions: string): McpServerConfig {
  return { command: process.execPath, args: [MODERN_SERVER, '--instructions', instructions] };
}

/** search_mcp_tools over the index, with a manager that has connected nothing. */
function searchTool(servers: LoaderServers): LoaderTool {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const tools = createLoaderTools({ manager, servers, manifestIndex: new ManifestIndex({ path: indexPath() }) });
  return tools.find((tool) => tool.name === 'search_mcp_tools') as LoaderTool;
}

/** Connects the server once while the index records it, as an agent's session would, and disconnects it; resolves with its manifest once the index file is written. */
async function connectedOnce(server: string, config: McpServerConfig): Promise<McpServerManifest> {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const stop = recordManifests(manager, new ManifestIndex({ path: indexPath() }), { [server]: config });
  try {
    return await manager.connect(server, config);
  } finally {
    stop();
    await manager.disconnect(server);
    await new ManifestIndex({ path: indexPath() }).flush();
  }
}

const emptyManifest = (): McpServerManifest => ({
  tools: [{ name: 'read_log', description: 'Reads one entry', inputSchema: { type: 'object' } }],
  resources: [],
  resourceTemplates: [],
  prompts: [],
});

describe('a server known only from the index is found by its instructions', () => {
  it('2025 era: server-everything indexed by `index` is found by `search` for words only its instructions use, described by their first line', async () => {
    const config = path.join(os.homedir(), 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SCRIPT, 'stdio'] } } }));
    const indexed = await runInProcess(['--config', config, 'index']);
    expect(indexed.code).toBe(0);

    const entry = (JSON.parse(readFileSync(indexPath(), 'utf8')) as { servers: Record<string, { instructions?: string }> }).servers.everything!;
    expect(entry.instructions).toMatch(/^# Everything Server – Server Instructions\n/);
    // Words no tool of server-everything uses: only the instructions' "Easter Egg" section answers them.
    const run = await runInProcess(['--config', config, 'search', '--json', 'easter', 'egg']);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as Answer;
    expect(answer.tools.length).toBeGreaterThan(0);
    expect(answer.tools.every(({ server }) => server === 'everything')).toBe(true);
    expect(answer.servers).toEqual([expect.objectContaining({ server: 'everything', connected: false, description: 'Everything Server – Server Instructions' })]);
  }, 60_000);

  it('2026-07-28: the instructions of `server/discover`, recorded while connected, answer a search once the server is gone', async () => {
    const config = modernWithInstructions(LIGHTHOUSE);
    expect((await connectedOnce('modern', config)).protocolVersion).toBe('2026-07-28');

    const search = searchTool({ modern: config });
    const answer = (await search.execute({ query: 'lighthouse logbook' })).data as Answer;
    expect(answer.tools.map(({ server }) => server)).toContain('modern');
    expect(answer.servers).toEqual([expect.objectContaining({ server: 'modern', connected: false, description: "Keeps the lighthouse keeper's logbook." })]);
  }, 30_000);

  it("a configured description is the server's one-line purpose on its own, not run together with its instructions", async () => {
    const config = modernWithInstructions(LIGHTHOUSE);
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const servers = { modern: { config, description: 'Harbour records' } };
    const loaderTools = () => createLoaderTools({ manager, servers, manifestIndex: new ManifestIndex({ path: indexPath() }) });
    loaderTools();
    await manager.connect('modern', config);
    // Search is offered once the index holds a manifest: the connect above recorded one.
    const search = loaderTools().find((tool) => tool.name === 'search_mcp_tools') as LoaderTool;
    const answer = (await search.execute({ query: 'lighthouse logbook' })).data as Answer;
    expect(answer.servers).toEqual([expect.objectContaining({ server: 'modern', connected: true, description: 'Harbour records' })]);
  }, 30_000);
});

describe('what the index keeps of instructions is bounded', () => {
  const hostile = `Tide\x1b]52;c;AAAA\x07 tables\u202e for\r\nharbours\u2066\x9b\x7f.\n${'x'.repeat(3 * MAX_PURPOSE_CHARACTERS)}`;

  it('shows control characters escaped and cuts the text at MAX_PURPOSE_CHARACTERS characters, in memory and on disk', async () => {
    const config = { command: 'tides-server-not-installed' };
    const index = new ManifestIndex({ path: indexPath() });
    expect(index.record('tides', config, emptyManifest(), undefined, { instructions: hostile })).toEqual({ stored: true });
    await index.flush();
    const onDisk = (JSON.parse(readFileSync(indexPath(), 'utf8')) as { servers: Record<string, { instructions?: string }> }).servers.tides!.instructions!;
    for (const kept of [index.entry('tides')!.instructions!, onDisk]) {
      expect(kept.length).toBeLessThanOrEqual(MAX_PURPOSE_CHARACTERS);
      expect(kept).not.toMatch(CONTROL_CHARACTERS);
      expect(kept.startsWith('Tide\\x1b]52;c;AAAA\\x07 tables\\u{202e} for\\x0d\nharbours\\u{2066}\\x9b\\x7f.\nxxx')).toBe(true);
    }
    const answer = (await searchTool({ tides: { config } }).execute({ query: 'harbours' })).data as Answer;
    expect(answer.servers).toEqual([expect.objectContaining({ server: 'tides', description: 'Tide\\x1b]52;c;AAAA\\x07 tables\\u{202e} for\\x0d' })]);
  });

  it('cuts before an escape that would not fit whole', () => {
    const config = { command: 'tides-server-not-installed' };
    const index = new ManifestIndex({ path: indexPath() });
    index.record('tides', config, emptyManifest(), undefined, { instructions: `${'t'.repeat(MAX_PURPOSE_CHARACTERS - 2)}\x1b[2J` });
    expect(index.entry('tides')!.instructions).toBe('t'.repeat(MAX_PURPOSE_CHARACTERS - 2));
  });

  it("bounds the copy in a 2026-07-28 server's recorded era (its server/discover answer) the same way", async () => {
    await connectedOnce('modern', modernWithInstructions(hostile));
    const entry = (JSON.parse(readFileSync(indexPath(), 'utf8')) as { servers: Record<string, { instructions: string; era: { discover: { instructions: string } } }> }).servers.modern!;
    expect(entry.era.discover.instructions).toBe(entry.instructions);
    expect(entry.instructions.length).toBeLessThanOrEqual(MAX_PURPOSE_CHARACTERS);
    expect(entry.instructions).not.toMatch(CONTROL_CHARACTERS);
  }, 30_000);

  it('bounds a hand-edited file the same way when it is read', () => {
    const config = { command: 'tides-server-not-installed' };
    const fingerprint = new ManifestIndex({ path: indexPath() }).fingerprint(config);
    const entry = { fingerprint, indexedAt: new Date().toISOString(), manifest: emptyManifest(), instructions: hostile };
    writeFileSync(path.join(os.homedir(), 'edited.json'), JSON.stringify({ version: 1, servers: { tides: entry }, projects: {} }));
    const kept = new ManifestIndex({ path: path.join(os.homedir(), 'edited.json') }).entry('tides')!.instructions!;
    expect(kept.length).toBeLessThanOrEqual(MAX_PURPOSE_CHARACTERS);
    expect(kept).not.toMatch(CONTROL_CHARACTERS);
  });
});

describe('an index file written before instructions were kept', () => {
  it('loads: its servers are searched by their tools and described by their configured description', async () => {
    const config = { command: 'notes-server-not-installed' };
    mkdirSync(path.dirname(indexPath()), { recursive: true });
    const fingerprint = new ManifestIndex({ path: indexPath() }).fingerprint(config);
    const older = { fingerprint, indexedAt: new Date().toISOString(), manifest: emptyManifest(), era: { kind: 'legacy' } };
    writeFileSync(indexPath(), JSON.stringify({ version: 1, servers: { notes: older }, projects: {} }));

    const index = new ManifestIndex({ path: indexPath() });
    expect(index.lookup('notes', config).status).toBe('fresh');
    expect(index.entry('notes')!.instructions).toBeUndefined();
    expect(index.recallEra('notes', config)).toEqual({ kind: 'legacy' });
    const answer = (await searchTool({ notes: { config, description: 'Notes of the day' } }).execute({ query: 'read log entry' })).data as Answer;
    expect(answer.tools).toEqual([expect.objectContaining({ server: 'notes', tool: 'read_log' })]);
    expect(answer.servers).toEqual([expect.objectContaining({ server: 'notes', description: 'Notes of the day' })]);
  });
});

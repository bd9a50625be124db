/**
 * The era a server speaks is kept in the manifest index with its manifest, so a new process
 * addresses the server at once instead of probing it again; an era the server refuses is asked
 * again. The negotiated revision is shown wherever the manifest or the state is: `load --json`,
 * `servers --json`, `doctor --json`, `mcp.stateChanged` and the lifecycle view's rows. Real
 * servers over stdio (the modern-only fixture, server-everything), the CLI as real processes; a
 * preload counts the `server/discover` requests each server process reads.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpStateChangedEmitted } from '../src/index.js';
import { ManifestIndex } from '../src/manifest-index/index.js';
import { ServerRows } from '../src/view/server-rows.js';
import { runCli } from './support/cli.js';
import { EVERYTHING_SCRIPT } from './support/everything.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));
const DISCOVER_LOG = pathToFileURL(fileURLToPath(new URL('./fixtures/discover-log.mjs', import.meta.url))).href;
const MODERN_REVISION = '2026-07-28';
const LEGACY_REVISION = '2025-11-25';

let home: string;
let probeLog: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-era-cache-'));
  probeLog = join(home, 'probes.log');
  writeFileSync(probeLog, '');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function probes(): number {
  return readFileSync(probeLog, 'utf8').split('\n').filter(Boolean).length;
}

/** A stdio entry whose processes log every `server/discover` they read. */
function logged(args: string[]) {
  return { command: process.execPath, args: ['--import', DISCOVER_LOG, ...args], env: { DISCOVER_LOG: probeLog } };
}

function writeConfig(servers: Record<string, unknown>): string {
  const file = join(home, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

/** `doctor` shows its progress on stderr; the other commands write nothing there when all is well. */
async function cliJson(config: string, args: string[], { quiet = true } = {}) {
  const run = await runCli(['--config', config, ...args, '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });
  if (quiet) expect(run.stderr).toBe('');
  return JSON.parse(run.stdout);
}

describe('a second process does not probe again', () => {
  it('a modern-only server: the era recorded by the first load is used by the next one', async () => {
    const config = writeConfig({ modern: logged([MODERN_SERVER]) });
    const first = await cliJson(config, ['load', 'modern']);
    expect(first).toMatchObject({ ok: true, data: { protocolVersion: MODERN_REVISION } });
    expect(probes()).toBe(1);

    const second = await cliJson(config, ['load', 'modern']);
    expect(second).toMatchObject({ ok: true, data: { protocolVersion: MODERN_REVISION } });
    expect(probes()).toBe(1);

    const listed = await cliJson(config, ['servers']);
    expect(listed.servers).toEqual([expect.objectContaining({ name: 'modern', indexed: 'yes', protocolVersion: MODERN_REVISION, era: 'modern' })]);
  }, 120_000);

  it('server-everything (legacy): the next process skips the probe and goes straight to initialize', async () => {
    const config = writeConfig({ everything: logged([EVERYTHING_SCRIPT, 'stdio']) });
    const first = await cliJson(config, ['load', 'everything']);
    expect(first).toMatchObject({ ok: true, data: { protocolVersion: LEGACY_REVISION } });
    expect(probes()).toBe(1);

    const second = await cliJson(config, ['load', 'everything']);
    expect(second).toMatchObject({ ok: true, data: { protocolVersion: LEGACY_REVISION } });
    expect(probes()).toBe(1);
  }, 120_000);

  it('a server that moved from legacy to modern under the same entry refuses the recorded era: it is probed again, and the new era recorded', async () => {
    const program = join(home, 'server.mjs');
    const runs = (script: string, argv: string[]) =>
      writeFileSync(program, `process.argv.splice(2, Infinity, ${argv.map((arg) => JSON.stringify(arg)).join(', ')});\nawait import(${JSON.stringify(pathToFileURL(script).href)});\n`);
    const config = writeConfig({ moving: logged([program]) });
    runs(EVERYTHING_SCRIPT, ['stdio']);
    expect(await cliJson(config, ['load', 'moving'])).toMatchObject({ ok: true, data: { protocolVersion: LEGACY_REVISION } });
    expect(probes()).toBe(1);

    runs(MODERN_SERVER, []);
    expect(await cliJson(config, ['load', 'moving'])).toMatchObject({ ok: true, data: { protocolVersion: MODERN_REVISION } });
    expect(probes()).toBe(2);

    expect(await cliJson(config, ['load', 'moving'])).toMatchObject({ ok: true, data: { protocolVersion: MODERN_REVISION } });
    expect(probes()).toBe(2);
  }, 180_000);
});

describe('the negotiated revision is shown', () => {
  it('by doctor --json', async () => {
    const config = writeConfig({ modern: logged([MODERN_SERVER]), everything: logged([EVERYTHING_SCRIPT, 'stdio']) });
    const report = await cliJson(config, ['doctor'], { quiet: false });
    const revisions = Object.fromEntries(
      report.servers.map((server: { name: string; protocolVersion?: string; era?: string }) => [server.name, [server.protocolVersion, server.era]]),
    );
    expect(revisions).toEqual({ modern: [MODERN_REVISION, 'modern'], everything: [LEGACY_REVISION, 'legacy'] });
  }, 120_000);

  it("by mcp.stateChanged when connected, by the manifest, and in the lifecycle view's row", async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const rows = new ServerRows(manager, () => {});
    const reports: McpStateChangedEmitted[] = [];
    manager.on('mcp.stateChanged', (event) => reports.push(event));
    try {
      const manifest = await manager.connect('modern', { command: process.execPath, args: [MODERN_SERVER] });
      expect(manifest.protocolVersion).toBe(MODERN_REVISION);
      expect(reports.filter((report) => report.state === 'connected').map((report) => report.protocolVersion)).toEqual([MODERN_REVISION]);
      expect(reports.filter((report) => report.state !== 'connected').every((report) => report.protocolVersion === undefined)).toBe(true);
      expect(rows.get('modern')?.protocolVersion).toBe(MODERN_REVISION);
    } finally {
      rows.stop();
      await manager.dispose();
    }
  }, 60_000);

  it('recorded in the manifest index with the era, for another process to read', async () => {
    const index = new ManifestIndex({ path: join(home, 'index.json') });
    const manager = new McpConnectionManager({ logger: silentLogger });
    const { recordManifests } = await import('../src/manifest-index/index.js');
    const config = { command: process.execPath, args: [MODERN_SERVER] };
    const stop = recordManifests(manager, index, { modern: config });
    try {
      await manager.connect('modern', config);
      await index.flush();
    } finally {
      stop();
      await manager.dispose();
    }
    const lookup = new ManifestIndex({ path: join(home, 'index.json') }).lookup('modern', config);
    expect(lookup.status).toBe('fresh');
    if (lookup.status !== 'fresh') return;
    expect(lookup.entry.manifest.protocolVersion).toBe(MODERN_REVISION);
    expect(lookup.entry.era).toMatchObject({ kind: 'modern', discover: { supportedVersions: expect.arrayContaining([MODERN_REVISION]) } });
  }, 60_000);
});

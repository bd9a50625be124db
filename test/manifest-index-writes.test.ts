/**
 * Writing the manifest index: two processes recording at once lose nothing (a lock beside the
 * file, re-read and merged under it); what a process records in one go is one write, in the
 * background; a manifest over the size the index keeps of one server is not kept, and says why.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLoaderTools, ManifestIndex, McpConnectionManager, silentLogger, type McpServerManifest } from '../src/index.js';
import { indexServers } from '../src/entries/config.js';
import { MAX_INDEXED_BYTES } from '../src/manifest-index/indexed-manifest.js';
import { INDEX_WRITE_INTERVAL_MS, recordManifests, type RecordingManager } from '../src/manifest-index/record-manifests.js';
import { stdioFixture } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';
import { readyGoProcess } from './support/ready-go-process.js';

const INDEX_WRITER = fileURLToPath(new URL('./fixtures/index-writer.ts', import.meta.url));

let folder: string;
let indexPath: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-index-writes-'));
  indexPath = path.join(folder, 'ai-zen', 'mcp-index.json');
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const manifest = (description = 'does nothing'): McpServerManifest => ({
  tools: [{ name: 'noop', description, inputSchema: { type: 'object' } }],
  resources: [],
  resourceTemplates: [],
  prompts: [],
});

function serversOnDisk(): string[] {
  return Object.keys((JSON.parse(readFileSync(indexPath, 'utf8')) as { servers: object }).servers).sort();
}

/** An index-writer process (test/fixtures/index-writer.ts), started and waiting for its go. */
function writerProcess(prefix: string, count: number) {
  return readyGoProcess(INDEX_WRITER, [indexPath, prefix, String(count)]);
}

describe('two processes writing one index at once', () => {
  it('keep every entry both recorded: nothing is lost between a read and a write, and no lock or temporary file is left', async () => {
    const count = 40;
    const writers = [writerProcess('first-', count), writerProcess('second-', count)];
    await Promise.all(writers.map((writer) => writer.ready));
    for (const writer of writers) writer.go();
    await Promise.all(writers.map((writer) => writer.done));
    await Promise.all(writers.map((writer) => writer.exited));

    const expected = ['first-', 'second-'].flatMap((prefix) => Array.from({ length: count }, (_, n) => `${prefix}${n}`)).sort();
    expect(serversOnDisk()).toEqual(expected);
    const index = new ManifestIndex({ path: indexPath });
    for (const name of expected) expect(index.lookup(name, { command: name }).status).toBe('fresh');
    expect(readdirSync(path.dirname(indexPath)).sort()).toEqual(['mcp-index.json', 'mcp-index.json.key']);
  }, 120_000);
});

describe('writes within a process', () => {
  it('are coalesced: fifty records in one go, through two indexes of the file, are one write, made after record returned', async () => {
    mkdirSync(path.dirname(indexPath), { recursive: true });
    const temporaryFiles = new Set<string>();
    const sentinel = 'sentinel';
    let sawSentinel: () => void = () => {};
    const sentinelSeen = new Promise<void>((seen) => (sawSentinel = seen));
    // Every write goes through a temporary file of its own: counting them counts the writes.
    const watcher = watch(path.dirname(indexPath), (_event, name) => {
      if (name && /^mcp-index\.json\.\d+\.[0-9a-f]+\.tmp$/.test(name)) temporaryFiles.add(name);
      if (name === sentinel) sawSentinel();
    });
    try {
      const one = new ManifestIndex({ path: indexPath });
      const two = new ManifestIndex({ path: indexPath });
      for (let n = 0; n < 50; n++) (n % 2 === 0 ? one : two).record(`server-${n}`, { command: `server-${n}` }, manifest());
      expect(readdirSync(path.dirname(indexPath))).not.toContain('mcp-index.json');
      expect(two.lookup('server-0', { command: 'server-0' }).status).toBe('fresh');
      await one.flush();
      // Events of one folder arrive in order: once the sentinel's is in, every write's is.
      writeFileSync(path.join(path.dirname(indexPath), sentinel), '');
      await sentinelSeen;
    } finally {
      watcher.close();
    }
    expect(temporaryFiles.size).toBe(1);
    expect(serversOnDisk()).toHaveLength(50);
  });
});

describe('a manifest over the size the index keeps of one server', () => {
  it('is not kept, with the reason, and the server’s earlier entry is taken out (a real server whose tools have long descriptions)', async () => {
    // Every tool with a 200 KB description: over the 1 MB kept of one server.
    const config = hostileServer('--long-descriptions', '200');
    const index = new ManifestIndex({ path: indexPath });
    expect(index.record('wordy', config, manifest('the manifest it had before')).stored).toBe(true);

    const [outcome] = await indexServers({ servers: { wordy: config }, index, managerOptions: { logger: silentLogger } });
    expect(outcome).toMatchObject({ server: 'wordy', ok: false });
    expect(outcome!.ok === false && outcome!.error).toMatch(/^not indexed: its manifest takes \d+\.\d MB, over the 1\.0 MB the index keeps of one server$/);
    expect(index.lookup('wordy', config).status).toBe('missing');
    expect(serversOnDisk()).toEqual([]);
    expect(readFileSync(indexPath, 'utf8').length).toBeLessThan(MAX_INDEXED_BYTES);

    const small = hostileServer();
    const [kept] = await indexServers({ servers: { wordy: small }, index, managerOptions: { logger: silentLogger } });
    expect(kept).toMatchObject({ server: 'wordy', ok: true });
    expect(index.lookup('wordy', small).status).toBe('fresh');
  }, 60_000);
});

describe('an index file this version cannot use', () => {
  const capture = () => {
    const warnings: string[] = [];
    return { warnings, logger: { ...silentLogger, warn: (message: string) => warnings.push(message) } };
  };

  it('another version\'s file is kept as <file>.old when a record replaces it, with one warning naming both and its format', async () => {
    mkdirSync(path.dirname(indexPath), { recursive: true });
    const newer = JSON.stringify({ version: 2, servers: { kept: { whatever: 'a newer version wrote this' } } });
    writeFileSync(indexPath, newer);
    const { warnings, logger } = capture();
    const index = new ManifestIndex({ path: indexPath, logger });
    index.record('first', { command: 'a' }, manifest());
    await index.flush();
    expect(readFileSync(`${indexPath}.old`, 'utf8')).toBe(newer);
    expect(serversOnDisk()).toEqual(['first']);
    expect(warnings).toEqual([
      `the manifest index ${indexPath} is replaced by this version's: it is in index format 2 (another version of mcp-statechart wrote it), ` +
        `and this one reads format 1; the old file is kept as ${indexPath}.old`,
    ]);
    index.record('second', { command: 'b' }, manifest());
    await index.flush();
    expect(serversOnDisk()).toEqual(['first', 'second']);
    expect(warnings).toHaveLength(1);
  });

  it('keeps only the latest replaced file, and says that it took the place of the one kept before', async () => {
    mkdirSync(path.dirname(indexPath), { recursive: true });
    writeFileSync(`${indexPath}.old`, 'what an earlier replacement kept');
    const newer = JSON.stringify({ version: 2, servers: {} });
    writeFileSync(indexPath, newer);
    const { warnings, logger } = capture();
    const index = new ManifestIndex({ path: indexPath, logger });
    index.record('first', { command: 'a' }, manifest());
    await index.flush();
    expect(readFileSync(`${indexPath}.old`, 'utf8')).toBe(newer);
    expect(readdirSync(path.dirname(indexPath)).filter((name) => name.includes('.old'))).toEqual(['mcp-index.json.old']);
    expect(warnings).toEqual([
      `the manifest index ${indexPath} is replaced by this version's: it is in index format 2 (another version of mcp-statechart wrote it), ` +
        `and this one reads format 1; the old file is kept as ${indexPath}.old, in place of the file an earlier replacement kept there`,
    ]);
  });

  it('a file that stopped being JSON after the index read it is kept too', async () => {
    const { warnings, logger } = capture();
    const index = new ManifestIndex({ path: indexPath, logger });
    index.record('first', { command: 'a' }, manifest());
    await index.flush();
    writeFileSync(indexPath, '{"version": 1, "servers": {"cut short');
    index.record('second', { command: 'b' }, manifest());
    await index.flush();
    expect(readFileSync(`${indexPath}.old`, 'utf8')).toBe('{"version": 1, "servers": {"cut short');
    expect(serversOnDisk()).toEqual(['second']);
    expect(warnings).toEqual([expect.stringMatching(/is replaced by this version's: it is not valid JSON; the old file is kept as .*mcp-index\.json\.old$/)]);
  });
});

describe('an index that cannot be written', () => {
  async function loadsWith(index: ManifestIndex): Promise<void> {
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      const load = createLoaderTools({ manager, servers: { fixture: stdioFixture() }, manifestIndex: index }).find((tool) => tool.name === 'load_mcp')!;
      expect((await load.execute({ server: 'fixture' })).isError).toBe(false);
    } finally {
      await manager.dispose();
    }
  }

  it('when the write fails: the connection works, lookups see the entry, flush() says what failed', async () => {
    // A folder stands where the index file would be: the key can be made, the file cannot be replaced.
    mkdirSync(indexPath, { recursive: true });
    const index = new ManifestIndex({ path: indexPath });
    await loadsWith(index);
    expect(index.lookup('fixture', stdioFixture()).status).toBe('fresh');
    await expect(index.flush()).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
  });

  it('when nothing can be made (a file stands where its folder would be): the connection still works, and nothing is thrown unhandled', async () => {
    writeFileSync(path.join(folder, 'ai-zen'), 'not a folder');
    await loadsWith(new ManifestIndex({ path: indexPath }));
  });
});

describe('a server whose lists change on every call', () => {
  it(`has its changes written at most every ${INDEX_WRITE_INTERVAL_MS} ms, the last one always`, async () => {
    // The manager's two events, as a server growing one tool a call makes them: only the recorder is under test.
    const listeners: Record<string, (event: { server: string; manifest?: McpServerManifest }) => void> = {};
    let latest = manifest('one tool');
    const grower = {
      on: (type: string, listener: (event: { server: string; manifest?: McpServerManifest }) => void) => {
        listeners[type] = listener;
        return () => {};
      },
      getManifest: () => latest,
    } as unknown as RecordingManager;
    const index = new ManifestIndex({ path: indexPath });
    const records = vi.spyOn(index, 'record');
    const stop = recordManifests(grower, index, { grow: { command: 'grow' } });
    try {
      for (let call = 1; call <= 50; call++) {
        latest = { ...manifest(), tools: Array.from({ length: call }, (_, n) => ({ name: `tool${n}`, inputSchema: { type: 'object' as const } })) };
        listeners['mcp.manifestChanged']!({ server: 'grow', manifest: latest });
      }
      expect(records).toHaveBeenCalledTimes(1);
      await vi.waitFor(() => expect(records).toHaveBeenCalledTimes(2), { timeout: 10_000, interval: 50 });
      await index.flush();
      const onDisk = new ManifestIndex({ path: indexPath }).lookup('grow', { command: 'grow' });
      expect(onDisk.status).toBe('fresh');
      expect(onDisk.status === 'fresh' && onDisk.entry.manifest.tools).toHaveLength(50);
    } finally {
      stop();
    }
  }, 30_000);
});

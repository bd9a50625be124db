/**
 * A copy staged beside a file (`<file>.<pid>.<hex>.tmp`) and left by a process killed before its
 * rename is removed by the next write of that file (under the file's lock where it has one): only
 * one whose process is gone, and older than a writer of another host sharing the folder could
 * still be using. Every file written through staged copies: configs, approvals, index, journal,
 * OAuth logins, search vectors, keys. Not a file `call --output --force` replaces: its folder is the
 * user's, and a file of theirs may be named like a left copy.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editServerEntries } from '../src/cli/config-file-edit.js';
import { revokeApprovals } from '../src/config/project-trust.js';
import { TaskJournal } from '../src/connection/task-journal.js';
import { ManifestIndex } from '../src/index.js';
import { loginFileName, OAuthTokenStore } from '../src/auth/token-store.js';
import { VectorStore } from '../src/search/vector-store.js';
import { loadOrCreateKey } from '../src/config/definition-fingerprint.js';
import { ensureApprovalKey } from '../src/config/approval-key.js';
import { wholeResult } from '../src/cli/whole-result.js';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'staged-copies-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function pidOfExited(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

const AN_HOUR_AGO = new Date(Date.now() - 3_600_000);

/** Plants a staged copy beside `file`, as one killed before its rename leaves it. */
function plant(file: string, pid: number, made: Date | 'now'): string {
  const copy = `${file}.${pid}.${pid.toString(16).padStart(12, '0')}.tmp`;
  writeFileSync(copy, '{"half": ', { mode: 0o600 });
  if (made !== 'now') utimesSync(copy, made, made);
  return copy;
}

const manifest = { tools: [{ name: 'noop', inputSchema: { type: 'object' as const } }], resources: [], resourceTemplates: [], prompts: [] };

/** Each file written by staging a copy and renaming it, and one write of it. */
const WRITERS: Array<[string, string, (file: string) => Promise<unknown>]> = [
  ['a config the CLI edits', 'mcp.json', (file) => editServerEntries(file, 'user', (servers) => ((servers.added = { command: 'node' }), true))],
  ['the approvals of project servers', 'project-approvals.json', (file) => revokeApprovals({ approvalsPath: file }, () => false)],
  [
    'the manifest index',
    'mcp-index.json',
    (file) => {
      const index = new ManifestIndex({ path: file });
      index.record('server', { command: 'node' }, manifest);
      return index.flush();
    },
  ],
  ['the task journal', 'mcp-tasks.json', (file) => new TaskJournal(file).begun({ server: 'server', taskId: 'task-1', tool: 'slow', startedAt: new Date(0).toISOString() })],
  ['an OAuth login', loginFileName('notes'), async (file) => new OAuthTokenStore('notes', dirname(file)).write({ serverUrl: 'https://notes.example/mcp' })],
  ['the search vectors', 'mcp-vectors.jsonl', (file) => new VectorStore({ embed: async (texts) => texts.map(() => [1, 0]) }, file).ensure(['notes'])],
  // A key is written once, when there is none: its making is its write.
  ["the manifest index's (or task journal's) key", 'mcp-index.json.key', async (file) => loadOrCreateKey(file)],
  ['the approval key', 'approval-key', (file) => ensureApprovalKey(file)],
];

describe('staged copies left beside a file', () => {
  it.each(WRITERS)('%s: the next write removes those of processes gone, and keeps a live process’s, a copy made seconds ago, and other files', async (_, name, write) => {
    mkdirSync(join(folder, 'state'));
    const file = join(folder, 'state', name);
    const left = [plant(file, pidOfExited(), AN_HOUR_AGO), plant(file, pidOfExited(), AN_HOUR_AGO)];
    // The test runner's parent lives as long as this test does.
    const live = plant(file, process.ppid, AN_HOUR_AGO);
    const recent = plant(file, pidOfExited(), 'now');
    // Other files, one named almost like a copy (no writer stages four hex digits).
    const others = [`${file}.backup.tmp`, `${file}.${pidOfExited()}.5678.tmp`];
    for (const other of others) {
      writeFileSync(other, 'mine');
      utimesSync(other, AN_HOUR_AGO, AN_HOUR_AGO);
    }

    await write(file);

    expect(existsSync(file)).toBe(true);
    expect(left.filter(existsSync)).toEqual([]);
    expect([live, recent, ...others].filter(existsSync)).toEqual([live, recent, ...others]);
  });
});

describe('a file `call --output <file> --force` replaces', () => {
  it("is in the user's folder: files there named like a gone process's left copies are the user's, and stay", async () => {
    const file = join(folder, 'photo.png');
    const lookAlikes = [plant(file, pidOfExited(), AN_HOUR_AGO), `${file}.99999.5678.tmp`];
    writeFileSync(lookAlikes[1]!, 'mine');
    utimesSync(lookAlikes[1]!, AN_HOUR_AGO, AN_HOUR_AGO);

    await wholeResult('charts', { kind: 'tool', result: { content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] } }, { path: file, force: true, maxFiles: 100 });

    expect(existsSync(file)).toBe(true);
    expect(lookAlikes.filter(existsSync)).toEqual(lookAlikes);
  });
});

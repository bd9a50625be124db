/**
 * The manifest index's key (and the task journal's, made the same way) is replaced only when no
 * key can be in its place. A read that fails for now says nothing of the key: replacing a sound
 * key would count every indexed server as changed and leave every unfinished task unresumable.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadOrCreateKey, ManifestIndexKeyUnreadable } from '../src/config/definition-fingerprint.js';
import { TSX_LOADER } from './support/cli.js';

const FINGERPRINT_MODULE = fileURLToPath(new URL('../src/config/definition-fingerprint.ts', import.meta.url));
const SOUND_KEY = `${'ab'.repeat(32)}\n`;

/** Reads the key in a process that has used up its file descriptors; returns what it printed. */
function readWithNoFdLeft(keyFile: string): string {
  const script = `
    import { openSync } from 'node:fs';
    const { loadOrCreateKey } = await import(${JSON.stringify(FINGERPRINT_MODULE)});
    const held = [];
    try { for (let i = 0; i < 10_000; i++) held.push(openSync('/dev/null', 'r')); } catch {}
    try { loadOrCreateKey(${JSON.stringify(keyFile)}); console.log('read'); } catch (error) { console.log(error.message); }
  `;
  // A low limit, so that the loop above reaches it in a few hundred opens.
  const run = spawnSync('/bin/sh', ['-c', 'ulimit -n 256 && exec "$0" --import "$1" --input-type=module -e "$2"', process.execPath, TSX_LOADER, script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return `${run.stdout}${run.stderr}`;
}

describe.skipIf(process.platform === 'win32')("the manifest index's key", () => {
  it('a read that fails for too many open files keeps the key and says to try again', () => {
    const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'index-key-')), 'mcp-index.json.key');
    writeFileSync(keyFile, SOUND_KEY, { mode: 0o600 });
    const said = readWithNoFdLeft(keyFile);
    expect(said).toContain('EMFILE');
    expect(said).toContain('It was kept as it is; try again');
    expect(readFileSync(keyFile, 'utf8')).toBe(SOUND_KEY);
  });

  it('a FIFO in its place is no key: a new one replaces it', () => {
    const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'index-key-')), 'mcp-index.json.key');
    execFileSync('mkfifo', [keyFile]);
    const key = loadOrCreateKey(keyFile);
    expect(readFileSync(keyFile, 'utf8')).toBe(`${key.toString('hex')}\n`);
  });

  it('a folder in its place is named, not replaced', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'index-key-'));
    expect(() => loadOrCreateKey(folder)).toThrow(ManifestIndexKeyUnreadable);
    expect(() => loadOrCreateKey(folder)).toThrow(/is a folder, not a file\. Remove it or move it away/);
  });
});

/**
 * The approvals file: rewritten atomically under a lock, read again before each write, so two
 * processes approving at once keep both; never written through a symlink planted beside it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverMcpServers } from '../src/config/index.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/approve-projects.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let root: string;
let approvalsPath: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcp-approvals-'));
  approvalsPath = join(root, 'state', 'approvals.json');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function approveInProcess(prefix: string, count: number): Promise<number | null> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, SCRIPT, approvalsPath, root, prefix, String(count)], { stdio: 'inherit' });
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve(code);
    }),
  );
}

describe('the approvals file', () => {
  it('keeps every approval when two processes approve at the same time', async () => {
    const codes = await Promise.all([approveInProcess('a', 25), approveInProcess('b', 25)]);
    expect(codes).toEqual([0, 0]);
    const approvals = JSON.parse(readFileSync(approvalsPath, 'utf8')) as Record<string, string>;
    expect(Object.keys(approvals)).toHaveLength(50);
    expect(readdirSync(join(root, 'state')).sort()).toEqual(['approvals.json']);
  }, 90_000);

  it('never writes through a symlink planted at the temporary name of the old scheme', async () => {
    mkdirSync(join(root, 'state'));
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, `${approvalsPath}.${process.pid}.tmp`);
    const project = join(root, 'project');
    mkdirSync(project);
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { cloned: { command: 'x' } } }));
    await discoverMcpServers({ projectRoot: project, userConfigPath: join(root, 'none.json'), env: {}, projectServers: 'ask', approvalsPath, approveProjectServer: () => true });
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(approvalsPath).isFile()).toBe(true);
    expect(existsSync(`${approvalsPath}.lock`)).toBe(false);
  });

  it('a FIFO in its place is read as no approvals, at once, and replaced by the file', async () => {
    mkdirSync(join(root, 'state'));
    execFileSync('mkfifo', [approvalsPath]);
    expect(await approveInProcess('f', 1)).toBe(0);
    expect(JSON.parse(readFileSync(approvalsPath, 'utf8'))).toEqual({ [join(root, 'f-0', '.mcp.json') + '#f0']: expect.any(String) });
  }, 90_000);
});

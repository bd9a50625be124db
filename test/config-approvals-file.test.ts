/**
 * The approvals file: rewritten atomically under a lock, read again before each write, so two
 * processes approving at once keep both; never written through a symlink planted beside it; a
 * file that cannot be used is said to be so and never replaced, so no earlier approval is lost.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverMcpServers } from '../src/config/index.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/approve-projects.ts', import.meta.url));
const DISCOVER = fileURLToPath(new URL('./fixtures/discover-asking.ts', import.meta.url));
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

  const SECRET = 'content-never-repeated';
  const unusable: [string, RegExp, () => void][] = [
    ['not valid JSON', /is not valid JSON/, () => writeFileSync(approvalsPath, `{"${SECRET}": `)],
    ['not a JSON object', /is not a JSON object/, () => writeFileSync(approvalsPath, JSON.stringify([SECRET]))],
    [
      'over 16 MB',
      /is 16,777,217 bytes; the limit is 16 MB \(16,777,216 bytes\)/,
      () => {
        writeFileSync(approvalsPath, `{"${SECRET}": "x"}`);
        truncateSync(approvalsPath, 16 * 1024 * 1024 + 1);
      },
    ],
  ];

  it.each(unusable)('a file %s is read with a warning naming it and what is wrong, never its content', async (_what, wrong, write) => {
    mkdirSync(join(root, 'state'));
    write();
    const project = cloned();
    const result = await discoverMcpServers({ projectRoot: project, userConfigPath: join(root, 'none.json'), env: {}, projectServers: 'ask', approvalsPath, approveProjectServer: () => false });
    const warning = result.problems.find((problem) => problem.file === approvalsPath);
    expect(warning).toMatchObject({ severity: 'warning', message: expect.stringMatching(wrong) });
    expect(warning!.message).toContain(`the approvals file ${approvalsPath}`);
    expect(warning!.message).toMatch(/no project server counts as approved; fix it, or move it away to start a new one/);
    expect(JSON.stringify(result.problems)).not.toContain(SECRET);
  });

  it.each(unusable)('a file %s is never replaced by an approval: the approval is refused in words saying what to do', async (_what, wrong, write) => {
    mkdirSync(join(root, 'state'));
    write();
    const before = readFileSync(approvalsPath);
    const project = cloned();
    const approving = discoverMcpServers({ projectRoot: project, userConfigPath: join(root, 'none.json'), env: {}, projectServers: 'ask', approvalsPath, approveProjectServer: () => true });
    await expect(approving).rejects.toThrow(wrong);
    await expect(approving).rejects.toThrow(/nothing was written, so the approvals it may hold are kept\. Fix it, or move it away to start a new one, then approve again\./);
    await expect(approving).rejects.not.toThrow(SECRET);
    expect(readFileSync(approvalsPath).equals(before)).toBe(true);
    expect(readdirSync(join(root, 'state')).sort()).toEqual(['approvals.json']);
  });

  it('a FIFO in place of the approval key is read as no key, at once', async () => {
    const keyPath = join(root, 'approval-key');
    execFileSync('mkfifo', [keyPath]);
    const project = cloned();
    const problems = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', TSX_LOADER, DISCOVER, project, approvalsPath, keyPath], { timeout: 45_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    expect(JSON.parse(problems)).toEqual([expect.objectContaining({ server: 'cloned', message: expect.stringMatching(/is waiting for approval/) })]);
    expect(statSync(keyPath).isFIFO()).toBe(true);
  }, 90_000);
});

/** A project folder whose `.mcp.json` defines one server, "cloned". */
function cloned(): string {
  const project = join(root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { cloned: { command: 'x' } } }));
  return project;
}

import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { discoverMcpServers, serverFingerprint, type DiscoveredServer } from '../src/config/index.js';

let root: string;
let project: string;
let userFile: string;
let approvalsPath: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcp-trust-'));
  project = join(root, 'project');
  mkdirSync(project);
  userFile = join(root, 'user.json');
  approvalsPath = join(root, 'state', 'approvals.json');
  writeFileSync(userFile, JSON.stringify({ mcpServers: { mine: { command: 'my-server' } } }));
  writeProject({ cloned: { command: 'cloned-server', args: ['--port', '1'], env: { TOKEN: 'secret-value-123' } } });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeProject(servers: Record<string, unknown>) {
  writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
}

const discover = (options: Parameters<typeof discoverMcpServers>[0]) =>
  discoverMcpServers({ userConfigPath: userFile, projectRoot: project, approvalsPath, ...options });

describe('project servers: trust, ask or deny', () => {
  it('trusts project servers by default', async () => {
    const { servers } = await discover({});
    expect(servers.cloned?.disabled).toBe(false);
  });

  it('deny: lists project servers as disabled with a problem; user servers are untouched', async () => {
    const { servers, problems } = await discover({ projectServers: 'deny' });
    expect(servers.cloned?.disabled).toBe(true);
    expect(servers.mine?.disabled).toBe(false);
    expect(problems).toContainEqual(expect.objectContaining({ server: 'cloned', message: expect.stringMatching(/denied/) }));
  });

  it('ask: without an approval callback, a project server stays disabled', async () => {
    const { servers, problems } = await discover({ projectServers: 'ask' });
    expect(servers.cloned?.disabled).toBe(true);
    expect(problems).toContainEqual(expect.objectContaining({ server: 'cloned', message: expect.stringMatching(/not approved/) }));
  });

  it('ask: asks once per definition and remembers the approval', async () => {
    const approve = vi.fn(async (_server: DiscoveredServer) => true);
    const first = await discover({ projectServers: 'ask', approveProjectServer: approve });
    expect(first.servers.cloned?.disabled).toBe(false);
    expect(approve).toHaveBeenCalledTimes(1);
    expect(approve.mock.calls[0]![0].name).toBe('cloned');

    const again = await discover({ projectServers: 'ask', approveProjectServer: approve });
    expect(again.servers.cloned?.disabled).toBe(false);
    expect(approve).toHaveBeenCalledTimes(1);
  });

  it('ask: an edited command needs approval again', async () => {
    await discover({ projectServers: 'ask', approveProjectServer: async () => true });
    writeProject({ cloned: { command: 'something-else', args: ['--port', '1'], env: { TOKEN: 'secret-value-123' } } });
    const refuse = vi.fn(async () => false);
    const { servers, problems } = await discover({ projectServers: 'ask', approveProjectServer: refuse });
    expect(refuse).toHaveBeenCalledTimes(1);
    expect(servers.cloned?.disabled).toBe(true);
    expect(problems).toContainEqual(expect.objectContaining({ message: expect.stringMatching(/since its definition changed/) }));
  });

  it('ask: a changed description needs approval again (the model reads it verbatim)', async () => {
    await discover({ projectServers: 'ask', approveProjectServer: async () => true });
    writeProject({ cloned: { command: 'cloned-server', args: ['--port', '1'], env: { TOKEN: 'secret-value-123' }, description: 'new words' } });
    const refuse = vi.fn(async () => false);
    const { servers } = await discover({ projectServers: 'ask', approveProjectServer: refuse });
    expect(refuse).toHaveBeenCalledTimes(1);
    expect(servers.cloned?.disabled).toBe(true);
  });

  it('ask: toggling disabled alone keeps the approval', async () => {
    await discover({ projectServers: 'ask', approveProjectServer: async () => true });
    writeProject({ cloned: { command: 'cloned-server', args: ['--port', '1'], env: { TOKEN: 'secret-value-123' }, disabled: false } });
    const approve = vi.fn(async () => false);
    const { servers } = await discover({ projectServers: 'ask', approveProjectServer: approve });
    expect(approve).not.toHaveBeenCalled();
    expect(servers.cloned?.disabled).toBe(false);
  });

  it('ask: an approval written into the file without the key does not count, so whoever can write the file cannot approve', async () => {
    const { servers } = await discover({});
    const cloned = servers.cloned!;
    mkdirSync(dirname(approvalsPath), { recursive: true });
    writeFileSync(approvalsPath, JSON.stringify({ [`${cloned.source}#cloned`]: serverFingerprint(cloned) }));
    const { servers: after } = await discover({ projectServers: 'ask' });
    expect(after.cloned?.disabled).toBe(true);
  });

  it('keys the approvals with a 0600 key outside ~/.ai-zen, made on the first approval', async () => {
    await discover({ projectServers: 'ask', approveProjectServer: async () => true });
    const key = join(homedir(), '.local', 'state', 'mcp-statechart', 'approval-key');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(key)).mode & 0o777).toBe(0o700);
    expect(readFileSync(key)).toHaveLength(32);
  });

  it('keeps approvals in a 0600 file that holds fingerprints, never values', async () => {
    await discover({ projectServers: 'ask', approveProjectServer: async () => true });
    expect(statSync(approvalsPath).mode & 0o777).toBe(0o600);
    const text = readFileSync(approvalsPath, 'utf8');
    expect(text).not.toContain('secret-value-123');
    expect(Object.values(JSON.parse(text) as Record<string, string>)[0]).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('a project server kept off by the trust policy', () => {
  it('says what it is: waiting for approval, and how a person approves it (no "disabled" it does not have)', async () => {
    const { servers, problems } = await discover({ projectServers: 'ask' });
    expect(servers.cloned).toMatchObject({ disabled: true, trust: 'awaiting approval' });
    expect(servers.cloned?.disabledBecause).toMatch(/waiting for approval.*mcp-statechart approve cloned/);
    const problem = problems.find((entry) => entry.server === 'cloned');
    expect(problem?.message).toMatch(/project server "cloned" is waiting for approval.*mcp-statechart approve cloned/);
    expect(problem?.message).not.toMatch(/disabled/);
  });

  it.each(['ask', 'deny'] as const)(
    '%s: does not switch off the user\'s server of the same name, which stays as it is; the problem is on the project entry',
    async (policy) => {
      writeProject({ mine: { command: 'cloned-mine' } });
      const { servers, problems, shadowed } = await discover({ projectServers: policy });
      expect(servers.mine).toMatchObject({ scope: 'user', source: userFile, disabled: false, config: { command: 'my-server' } });
      expect(shadowed).toEqual([expect.objectContaining({ name: 'mine', scope: 'project', disabled: true, config: expect.objectContaining({ command: 'cloned-mine' }) })]);
      const onProject = problems.filter((problem) => problem.server === 'mine');
      expect(onProject.every((problem) => problem.file === join(project, '.mcp.json'))).toBe(true);
      expect(onProject.map((problem) => problem.message)).toContainEqual(
        expect.stringMatching(new RegExp(`does not replace the server "mine" of ${userFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(user\\), which stays in use`)),
      );
      expect(onProject.some((problem) => /overrides/.test(problem.message))).toBe(false);
    },
  );

  it('once approved, it overrides the user\'s server of the same name, as a trusted one does', async () => {
    writeProject({ mine: { command: 'cloned-mine' } });
    const { servers, problems, shadowed } = await discover({ projectServers: 'ask', approveProjectServer: async () => true });
    expect(servers.mine).toMatchObject({ scope: 'project', disabled: false });
    expect(shadowed ?? []).toEqual([]);
    expect(problems).toContainEqual(expect.objectContaining({ server: 'mine', message: expect.stringMatching(/overrides/) }));
  });
});

import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

/** `login` sends the entry's URL and headers a request: it must apply the same trust as every other command. */
let home: string;
let project: string;
let server: Server;
let url: string;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  url = `http://127.0.0.1:${address.port}/mcp`;

  home = mkdtempSync(join(tmpdir(), 'mcp-login-trust-'));
  mkdirSync(join(home, '.ai-zen'));
  writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { off: { url, disabled: true }, shared: { url, description: 'the user’s own' } } }));
  project = join(home, 'cloned');
  mkdirSync(join(project, '.git'), { recursive: true });
  writeFileSync(
    join(project, '.mcp.json'),
    JSON.stringify({ mcpServers: { remote: { url, headers: { 'X-Api-Key': '${LOGIN_TRUST_SECRET}' } }, shared: { url: `${url}?cloned` } } }),
  );
});
// Each test counts only the requests its own command sent.
beforeEach(() => {
  requests = 0;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

const login = (name: string, ...flags: string[]) =>
  runCli([...flags, 'login', name, '--no-browser'], {
    cwd: project,
    env: { HOME: home, LOGIN_TRUST_SECRET: 'from-the-users-environment' },
    timeoutMs: 20_000,
  });

describe('login applies project trust', () => {
  it('a denied project server is not logged into: no request reaches it', async () => {
    const run = await login('remote', '--project-servers', 'deny');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/"remote" is off: project servers are denied.*Nothing was sent/);
    expect(requests).toBe(0);
  }, 30_000);

  it('an unapproved project server (nobody to ask) is not logged into', async () => {
    const run = await login('remote');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/"remote" is off: it is a project server waiting for approval.*"mcp-statechart approve remote".*Nothing was sent/);
    expect(requests).toBe(0);
  }, 30_000);

  it('a server disabled in its own entry is not logged into', async () => {
    const run = await login('off');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/"off" is disabled/);
    expect(requests).toBe(0);
  }, 30_000);

  it('the same project server, trusted, is asked (the counter sees requests)', async () => {
    const run = await runCli(['--project-servers', 'trust', 'login', 'remote', '--no-browser'], {
      cwd: project,
      env: { HOME: home },
      timeoutMs: 20_000,
    });
    expect(run.code).not.toBe(0);
    expect(requests).toBeGreaterThan(0);
  }, 30_000);
});

describe('an unapproved project server, as the CLI reports it', () => {
  it('load says it waits for approval and how to approve it, not that it is disabled', async () => {
    const run = await runCli(['load', 'remote'], { cwd: project, env: { HOME: home }, timeoutMs: 20_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Error: server "remote" is off: it is a project server waiting for approval/);
    expect(run.stderr).toMatch(/Hint: run `mcp-statechart approve remote` on a terminal/);
    expect(run.stderr).not.toMatch(/disabled/);
    expect(requests).toBe(0);
  }, 30_000);

  it("servers keeps the user's server of the same name in use and shows the shadowing on the project entry", async () => {
    const run = await runCli(['servers'], { cwd: project, env: { HOME: home }, timeoutMs: 20_000 });
    expect(run.stdout).toMatch(/^shared\s+user\s+http\s+enabled\s/m);
    expect(run.stdout).toMatch(/^shared\s+project\s+http\s+awaiting approval\s/m);
    expect(run.stdout).toMatch(/project server "shared" does not replace the server "shared" of .*mcp\.json \(user\), which stays in use/);
    expect(run.stdout).not.toMatch(/"shared" \(project\) overrides/);
  }, 30_000);

  // Last: doctor connects the user's servers, so the request counter moves.
  it('doctor says it was not checked because it awaits approval', async () => {
    const run = await runCli(['doctor'], { cwd: project, env: { HOME: home }, timeoutMs: 20_000 });
    expect(run.stdout).toMatch(/Not checked: .*remote \(awaiting approval\)/);
  }, 30_000);
});

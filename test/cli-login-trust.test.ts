import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { off: { url, disabled: true } } }));
  project = join(home, 'cloned');
  mkdirSync(join(project, '.git'), { recursive: true });
  writeFileSync(
    join(project, '.mcp.json'),
    JSON.stringify({ mcpServers: { remote: { url, headers: { 'X-Api-Key': '${LOGIN_TRUST_SECRET}' } } } }),
  );
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
    expect(run.stderr).toMatch(/"remote" is disabled .*denied.*nothing was sent/);
    expect(requests).toBe(0);
  }, 30_000);

  it('an unapproved project server (nobody to ask) is not logged into', async () => {
    const run = await login('remote');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/"remote" is disabled .*not approved/);
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
      timeoutMs: 5_000,
    });
    expect(run.code).not.toBe(0);
    expect(requests).toBeGreaterThan(0);
  }, 30_000);
});

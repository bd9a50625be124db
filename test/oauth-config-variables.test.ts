/** `${VAR}` in the `oauth` entry expands like every other field, and a failed login never prints an empty error. */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverMcpServers } from '../src/config/index.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';
import { CLI_COMMAND } from './support/cli.js';

let home: string;
let config: string;
let fixture: OAuthFixture;

beforeAll(async () => {
  fixture = await startOAuthFixture({ clients: [{ client_id: 'registered-app', client_secret: 'the-real-client-secret' }], dynamicRegistration: false });
  home = mkdtempSync(join(tmpdir(), 'mcp-oauth-vars-'));
  mkdirSync(join(home, '.ai-zen'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        remote: { url: fixture.url, oauth: { clientId: '${OAUTH_CLIENT_ID}', clientSecret: '${OAUTH_CLIENT_SECRET}', scopes: ['${OAUTH_SCOPE:-mcp:read}'] } },
      },
    }),
  );
});
afterAll(async () => {
  await fixture.close();
  rmSync(home, { recursive: true, force: true });
});

/** Runs `login remote`, plays the browser with the URL it prints. */
function login(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, '--config', config, 'login', 'remote', '--no-browser'], {
    cwd: home,
    env: { ...process.env, HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let browsed = false;
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\S+)$/m.exec(stderr)?.[1];
    if (url && !browsed) {
      browsed = true;
      void fixture.browse(new URL(url)).catch(() => {});
    }
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr });
    });
  });
}

describe('${VAR} in the oauth entry', () => {
  it('expands clientId, clientSecret and scopes, and reports an unset one by field', async () => {
    const { servers, problems } = await discoverMcpServers({
      configPaths: [config],
      env: { OAUTH_CLIENT_ID: 'registered-app' },
    });
    expect(servers.remote?.config.oauth).toEqual({ clientId: 'registered-app', clientSecret: '', scopes: ['mcp:read'] });
    expect(problems).toContainEqual(expect.objectContaining({ server: 'remote', field: 'oauth.clientSecret' }));
  });

  it('logs in with a pre-registered client whose secret comes from the environment', async () => {
    const run = await login({ OAUTH_CLIENT_ID: 'registered-app', OAUTH_CLIENT_SECRET: 'the-real-client-secret' });
    expect(run.stderr).toMatch(/Logged in to "remote"/);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('the-real-client-secret');
  }, 30_000);

  it('a refused client secret ends with the OAuth error code, never an empty message', async () => {
    const run = await login({ OAUTH_CLIENT_ID: 'registered-app', OAUTH_CLIENT_SECRET: 'a-wrong-secret' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: invalid_client/m);
    expect(run.stderr).not.toMatch(/Error: *\n/);
    expect(run.stderr).not.toContain('a-wrong-secret');
  }, 30_000);
});

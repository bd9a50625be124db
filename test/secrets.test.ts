import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InspectionEvent } from 'xstate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLoaderTools, McpConnectionManager, type Logger } from '../src/index.js';
import { login } from '../src/entries/oauth.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { oauthFixture } from './fixtures/oauth-helpers.js';
import { runCli } from './support/cli.js';
import { runInProcess } from './support/in-process-cli.js';
import { rejectionOf, settle, stdioFixture } from './support/fixtures.js';

const ENV_CANARY = 'canary-env-5e1f0c2a';
const HEADER_CANARY = 'canary-header-9b7d3e41';
const CLIENT_SECRET_CANARY = 'canary-client-secret-77aa01';

/** Everything an error can show: message, stack, stderr tail, and the whole cause chain. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error) {
    parts.push(current.message, current.stack ?? '', String((current as { stderrTail?: string }).stderrTail ?? ''));
    current = current.cause;
  }
  return parts.join('\n');
}

/** JSON of anything, cycles and functions dropped: what an inspector or a log sink would write. */
function serialize(value: unknown): string {
  const seen = new WeakSet();
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'function') return undefined;
    if (item instanceof Error) return { message: item.message, stack: item.stack, cause: item.cause };
    if (item && typeof item === 'object') {
      if (seen.has(item)) return undefined;
      seen.add(item);
    }
    return item;
  });
}

function capture() {
  const lines: string[] = [];
  const sink = (message: string, details?: Record<string, unknown>) => lines.push(message + serialize(details ?? {}));
  const logger: Logger = { debug: sink, info: sink, warn: sink, error: sink };
  return { lines, logger };
}

let fixture: HttpFixture;
let folder: string;
beforeAll(async () => {
  fixture = await startHttpFixture({ mode: 'status', status: 401, echoAuthorization: true });
  folder = mkdtempSync(join(tmpdir(), 'mcp-secrets-'));
});
afterAll(async () => {
  await fixture.close();
  rmSync(folder, { recursive: true, force: true });
});

const careless = () => ({ ...stdioFixture('--print-env', 'API_TOKEN'), env: { API_TOKEN: ENV_CANARY } });
const echoing = () => ({ url: fixture.url, headers: { Authorization: `Bearer ${HEADER_CANARY}` } });

describe('secrets (env and header values) never leave the library', () => {
  it('are absent from logs, errors, stderr tails, manifests, loader tool text and inspection events', async () => {
    const { lines, logger } = capture();
    const inspected: InspectionEvent[] = [];
    const manager = new McpConnectionManager({
      logger,
      defaults: { autoReconnect: false },
      inspect: (event) => inspected.push(event),
    });
    const outputs: string[] = [];

    // A server that prints its token to stderr, then crashes: the lost-connection error carries the stderr tail.
    const manifest = await manager.connect('careless', careless());
    outputs.push(serialize(manifest));
    const lost = await rejectionOf(manager.callTool('careless', 'crash', {}));
    outputs.push(errorText(lost));
    await vi.waitFor(() => expect(manager.getError('careless')).toBeDefined());
    const lastError = manager.getError('careless')!;
    expect(errorText(lastError)).toContain('API_TOKEN=[redacted]');
    outputs.push(errorText(lastError));

    // A server that echoes the Authorization header in its 401 body.
    const refused = await rejectionOf(manager.connect('echoing', echoing()));
    expect(refused.message).toContain('[redacted]');
    outputs.push(errorText(refused));

    // An OAuth entry with a client secret, refused for want of a login.
    const oauthFixture = await startHttpFixture({ mode: 'status', status: 401 });
    const needsLogin = await rejectionOf(
      manager.connect('oauthy', { url: oauthFixture.url, oauth: { clientId: 'client', clientSecret: CLIENT_SECRET_CANARY } }),
    );
    outputs.push(errorText(needsLogin));
    await oauthFixture.close();

    // The loader tools' text for both.
    const tools = createLoaderTools({ manager, servers: { careless: careless(), echoing: echoing() } });
    for (const server of ['careless', 'echoing']) {
      const result = await tools[0]!.execute({ server });
      outputs.push(result.text, serialize(result.data));
    }
    await settle();
    await manager.dispose();

    outputs.push(...lines, serialize(inspected));
    const everything = outputs.join('\n');
    expect(everything).not.toContain(ENV_CANARY);
    expect(everything).not.toContain(HEADER_CANARY);
    expect(everything).not.toContain(CLIENT_SECRET_CANARY);
    // The search is not vacuous: the events and logs are there.
    expect(inspected.length).toBeGreaterThan(10);
    expect(lines.some((line) => line.includes('careless'))).toBe(true);
  });

  it('are absent from every CLI command output, --json and --verbose included', async () => {
    const config = join(folder, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { careless: careless(), echoing: echoing() } }));
    // Five CLI processes at once on a 2-core machine: what is checked is their output, not their speed.
    const cli = (args: string[]) => runCli(['--config', config, ...args], { cwd: folder, env: { HOME: folder }, timeoutMs: 45_000 });
    const runs = await Promise.all([
      cli(['servers']),
      cli(['servers', '--json']),
      cli(['--verbose', 'load', 'careless']),
      cli(['--verbose', 'load', 'echoing']),
      cli(['--verbose', 'call', 'careless', 'crash']),
    ]);
    for (const run of runs) expect(run.elapsed, `killed at its time limit: ${run.stderr}`).toBeLessThan(45_000);
    const everything = runs.map((run) => run.stdout + run.stderr).join('\n');
    expect(everything).toContain('API_TOKEN=[redacted]');
    expect(everything).not.toContain(ENV_CANARY);
    expect(everything).not.toContain(HEADER_CANARY);
  }, 60_000);

  it('are absent from doctor and servers, --json included, for OAuth servers: one logged in, one whose broken resource metadata doctor warns of', async () => {
    // The resource metadata is not JSON: a login falls back to the origin (the fixture's own authorization server).
    const fixture = await oauthFixture({ resourceMetadata: () => ({ status: 200, body: 'not json' }) });
    const headers = { 'X-Trace': HEADER_CANARY };
    const loggedIn = { url: fixture.url, headers };
    await login('remote', loggedIn, { openBrowser: fixture.browse, print: () => {} });
    const notLoggedIn = { url: fixture.url, headers, oauth: { clientId: 'pre-registered', clientSecret: CLIENT_SECRET_CANARY } };
    const config = join(folder, 'oauth-mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { careless: careless(), remote: loggedIn, unlogged: notLoggedIn } }));

    const runs = [];
    for (const args of [['doctor'], ['doctor', '--json'], ['servers'], ['servers', '--json'], ['--verbose', 'doctor']]) runs.push(await runInProcess(['--config', config, ...args]));
    const everything = runs.map((run) => run.stdout + run.stderr).join('\n');

    // What is checked was shown: the logged-in server connected, the other's warning printed.
    expect(runs[0]?.stdout).toMatch(/remote\s+http\s+connected/);
    expect(runs[0]?.stdout).toContain('  warning: the protected-resource metadata of MCP server "unlogged"');
    expect(fixture.issuedTokens.length).toBeGreaterThanOrEqual(2);
    for (const secret of [ENV_CANARY, HEADER_CANARY, CLIENT_SECRET_CANARY, ...fixture.issuedTokens]) expect(everything).not.toContain(secret);
  }, 60_000);
});

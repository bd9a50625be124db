/**
 * `serve` gives downstream servers the roots its host last gave, also when a server asks outside
 * any call of the host (server-everything asks 350 ms after `initialize`), and finds the project
 * (its `.mcp.json`) from the roots of a host of either era. A 2026-07-28 host can only be asked
 * inside a call it waits on (client/roots.mdx: `roots/list` rides an `InputRequiredResult`), so
 * serve asks it once, on its first call, and remembers the answer.
 * Real processes: serve (the CLI), server-everything behind the recording relay, the fixture.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { answersReceived, everythingBehindRelay, everythingConfigHome, receivedByServer } from './support/everything.js';
import { startRootsHost, type HostEraName, type RootsHost } from './support/era-hosts.js';
import { stdioFixture } from './support/fixtures.js';

const HOST_ROOTS = [{ uri: 'file:///host/project', name: 'project' }];
const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

const serveParameters = (home: string, flags: string[], cwd = home) => ({
  command: CLI_COMMAND.command,
  args: [...CLI_COMMAND.args, ...flags, 'serve'],
  env: { HOME: home, PATH: process.env.PATH ?? '' },
  cwd,
  stderr: 'ignore' as const,
});

const ERAS: Array<{ era: HostEraName; name: string }> = [
  { era: 'legacy', name: 'a 2025 host (v1 client, initialize)' },
  { era: 'modern', name: 'a 2026-07-28 host (v2 client, pinned)' },
];

let host: RootsHost | undefined;
const cleanUps: Array<() => void> = [];
afterEach(async () => {
  await host?.close();
  host = undefined;
  for (const cleanUp of cleanUps.splice(0)) cleanUp();
});

describe.each(ERAS)("a downstream server's roots/list outside any call, under $name", ({ era }) => {
  it("server-everything's roots/list after initialize is answered with the host's roots", async () => {
    const setup = everythingConfigHome('mcp-serve-host-roots-');
    cleanUps.push(setup.remove);
    host = await startRootsHost(era, serveParameters(setup.home, ['--config', setup.config]), HOST_ROOTS);
    expect(await host.call('load_mcp', { server: 'everything' })).toMatchObject({ isError: false });
    // The first answer serve gives the server is the one to its roots/list, ~350 ms after initialize.
    await expect.poll(() => answersReceived(setup.received).length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(answersReceived(setup.received)[0]).toBe(`answer ${JSON.stringify({ roots: HOST_ROOTS })}`);
  }, 60_000);
});

describe('roots a 2026-07-28 host gives in a later call', () => {
  it('reach a server connected earlier: it is sent roots/list_changed and, asking outside any call, gets them', async () => {
    const setup = everythingConfigHome('mcp-serve-host-roots-change-');
    cleanUps.push(setup.remove);
    const config = join(setup.home, 'two.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: everythingBehindRelay(setup.received), modern: { command: process.execPath, args: [MODERN_SERVER] } } }));
    const roots = [...HOST_ROOTS];
    host = await startRootsHost('modern', serveParameters(setup.home, ['--config', config]), roots);
    for (const server of ['everything', 'modern']) expect(await host.call('load_mcp', { server })).toMatchObject({ isError: false });
    await expect.poll(() => answersReceived(setup.received).length, { timeout: 15_000 }).toBeGreaterThan(0);

    // The person opens another folder; the host gives it when next asked: inside a call to the modern server.
    const moved = [{ uri: 'file:///host/other', name: 'other' }];
    roots.splice(0, roots.length, ...moved);
    expect(await host.call('call_mcp_tool', { server: 'modern', tool: 'list-roots', arguments: {} })).toEqual({ isError: false, text: 'file:///host/other' });
    await expect.poll(() => receivedByServer(setup.received), { timeout: 15_000 }).toContain('notifications/roots/list_changed');
    await expect.poll(() => answersReceived(setup.received).at(-1), { timeout: 15_000 }).toBe(`answer ${JSON.stringify({ roots: moved })}`);
  }, 60_000);
});

describe.each(ERAS)('the project from the roots of $name', ({ era }) => {
  it("a root whose folder holds a .mcp.json brings that project's servers to the host's first call", async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-serve-host-project-'));
    cleanUps.push(() => rmSync(home, { recursive: true, force: true }));
    const project = join(home, 'project');
    mkdirSync(project);
    mkdirSync(join(home, 'elsewhere'));
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { cloned: stdioFixture() } }));
    const roots = [{ uri: pathToFileURL(join(home, 'no-config-here')).href }, { uri: pathToFileURL(project).href }];
    host = await startRootsHost(era, serveParameters(home, ['--project-servers', 'trust'], join(home, 'elsewhere')), roots);
    const loadCloned = async () => (await host!.call('load_mcp', { server: 'cloned' })).isError;
    // A 2026-07-28 host is asked on its first call, which runs once the project is read; a 2025 host after initialize, so the project may come a moment later.
    if (era === 'modern') expect(await loadCloned()).toBe(false);
    else await expect.poll(loadCloned, { timeout: 15_000 }).toBe(false);
    expect(await host.loadableServers()).toEqual(['cloned']);
  }, 60_000);
});

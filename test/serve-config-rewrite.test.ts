/**
 * A model that can write files through a filesystem server over the home folder (a common
 * setup) must not be able to add a server to ~/.ai-zen/mcp.json and start it in the same
 * session, nor approve it by writing the approvals file. Driven as a host drives serve.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serverFingerprint, type DiscoveredServer } from '../src/config/index.js';
import { CLI_COMMAND, runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { startServeIn, type ServeHost } from './support/serve-host.js';

const FILESYSTEM_SERVER = fileURLToPath(new URL('../node_modules/.bin/mcp-server-filesystem', import.meta.url));

let serve: ServeHost | undefined;
afterEach(async () => {
  serve?.end();
  await serve?.exited;
  serve?.cleanUp();
  serve = undefined;
});

/** A host that calls tools by name; ids count up from 100 so that no id is a prefix of another. */
function toolCaller(host: ServeHost) {
  let id = 100;
  return async (name: string, args: Record<string, unknown>): Promise<string> => {
    const current = ++id;
    host.send({ id: current, method: 'tools/call', params: { name, arguments: args } });
    const answer = (await host.answer(current)) as { result?: { content?: Array<{ text?: string }> } };
    return (answer.result?.content ?? []).map((part) => part.text ?? '').join('');
  };
}

/** Answers `load_mcp` for `server` until its answer is no longer "unknown" (serve re-read the file), within 30 s. */
async function loadOnceKnown(call: ReturnType<typeof toolCaller>, server: string): Promise<string> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const text = await call('load_mcp', { server });
    if (!text.startsWith('Unknown MCP server')) return text;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`serve never saw the server "${server}"`);
}

/** The line of load_mcp's definition naming the servers that wait for the user's approval, as the host lists it. */
async function awaitingLineOf(host: ServeHost, id: number): Promise<string | undefined> {
  host.send({ id, method: 'tools/list' });
  const { tools } = (await host.answer(id)).result as unknown as { tools: Array<{ name: string; description: string }> };
  return tools.find((tool) => tool.name === 'load_mcp')!.description.split('\n').find((line) => line.includes("need the user's approval"));
}

/** `mcp-statechart approve <name>` run by a person on a terminal (a pseudo-terminal from script(1)), answering y. */
function approveOnTerminal(home: string, name: string): Promise<number | null> {
  const command = [CLI_COMMAND.command, ...CLI_COMMAND.args, 'approve', name].map((word) => `'${word}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: home, env: { HOME: home, PATH: process.env.PATH ?? '', TERM: 'dumb' } });
  child.stdout.resume();
  setTimeout(() => child.stdin.write('y\n'), 1_000).unref();
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((done) => child.on('close', (code) => (clearTimeout(timer), done(code))));
}

describe('serve and a config the model can write', () => {
  it('a server the model writes into ~/.ai-zen/mcp.json does not run until a person approves it on a terminal; a forged approval does not count', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-serve-rewrite-')));
    const userFile = join(home, '.ai-zen', 'mcp.json');
    mkdirSync(join(home, '.ai-zen'));
    const addedRan = join(home, 'added-ran.log');
    const changedRan = join(home, 'changed-ran.log');
    const fs = { command: process.execPath, args: [FILESYSTEM_SERVER, home] };
    writeFileSync(userFile, JSON.stringify({ mcpServers: { fs, kept: stdioFixture(), gone: stdioFixture() } }));
    serve = startServeIn(home);
    const call = toolCaller(serve);
    serve.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } });
    await serve.answer(1);
    serve.send({ method: 'notifications/initialized' });
    expect(await call('load_mcp', { server: 'fs' })).toContain('write_file');

    // What the model writes through the filesystem server: an approval as the unkeyed fingerprint, then the new config.
    const added = stdioFixture('--log-requests', addedRan);
    const changed = stdioFixture('--log-requests', changedRan);
    const forged = { [`${userFile}#added`]: serverFingerprint({ name: 'added', transport: 'stdio', config: added } as DiscoveredServer) };
    await call('call_mcp_tool', { server: 'fs', tool: 'write_file', arguments: { path: join(home, '.ai-zen', 'mcp-approvals.json'), content: JSON.stringify(forged) } });
    const rewritten = JSON.stringify({ mcpServers: { fs, kept: changed, added } });
    expect(await call('call_mcp_tool', { server: 'fs', tool: 'write_file', arguments: { path: userFile, content: rewritten } })).toMatch(/wrote/i);

    const refused = await loadOnceKnown(call, 'added');
    expect(refused).toMatch(/MCP server "added" is off: its entry appeared in .*mcp\.json while mcp-statechart serve was running/);
    expect(refused).toMatch(/mcp-statechart approve added/);
    // A changed command, args, url or env asks again too; a removal applies at once.
    const changedWords = await call('load_mcp', { server: 'kept' });
    expect(changedWords).toMatch(
      /MCP server "kept" is off: its entry changed \(command, args, cwd, url, env or headers\) in .*mcp\.json while mcp-statechart serve was running, and a server changed there while serving runs only once a person confirms it/,
    );
    expect(changedWords).not.toContain('added');
    expect(await call('load_mcp', { server: 'gone' })).toMatch(/^Unknown MCP server "gone"/);
    expect(existsSync(addedRan)).toBe(false);
    expect(existsSync(changedRan)).toBe(false);
    // The model is told which servers wait, so it can ask the user for one.
    expect(await awaitingLineOf(serve, 50)).toMatch(/^These servers need the user's approval before use \(.*\): kept, added\.$/);

    // A person confirms it on a terminal: serve sees the approval without a restart.
    expect(await approveOnTerminal(home, 'added')).toBe(0);
    for (let attempt = 0; attempt < 150 && (await call('load_mcp', { server: 'added' })).includes('is off'); attempt++) {
      await new Promise((done) => setTimeout(done, 200));
    }
    expect(await call('load_mcp', { server: 'added' })).toContain('echo');
    expect(await awaitingLineOf(serve, 51)).toMatch(/: kept\.$/);
    expect(existsSync(addedRan)).toBe(true);
    expect(existsSync(changedRan)).toBe(false);
  }, 120_000);

  it('approve refuses without a terminal: a script or a model cannot confirm', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-approve-')));
    mkdirSync(join(home, '.ai-zen'));
    writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { added: stdioFixture() } }));
    try {
      const run = await runCli(['approve', 'added'], { cwd: home, env: { HOME: home }, input: 'y\n', timeoutMs: 30_000 });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/run it on a terminal\. Nothing was approved/);
      expect(existsSync(join(home, '.ai-zen', 'mcp-approvals.json'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * Nothing from a config file or a server reaches the terminal raw: names, descriptions, tool
 * names, server stderr, HTTP error bodies and error results are escaped in every CLI listing and
 * on stderr. A tool result piped from stdout is the one exception: it is the user's data (on a
 * terminal it is escaped too: cli-terminal-screen.test.ts).
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManifestIndex } from '../src/index.js';
import { runCli } from './support/cli.js';

const HOSTILE_SERVER = fileURLToPath(new URL('./fixtures/hostile-text-server.mjs', import.meta.url));
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\r\u009b31m\u007f\nforged row';

/** Any byte below 0x20 but \n and \t, DEL, or a C1 control. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

let home: string;
let config: string;
let web: Server;

beforeAll(async () => {
  web = createServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`upstream broke ${HOSTILE}`));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const address = web.address();
  if (address === null || typeof address === 'string') throw new Error('no port');

  home = mkdtempSync(join(tmpdir(), 'mcp-terminal-'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        [`named${HOSTILE}`]: { command: 'x', description: `described ${HOSTILE}` },
        hostile: { command: process.execPath, args: [HOSTILE_SERVER] },
        dies: { command: process.execPath, args: [HOSTILE_SERVER, '--exit-at-start'] },
        web: { url: `http://127.0.0.1:${address.port}/mcp` },
        unsetVariable: { command: 'x', args: [`\${UNSET_${'\u001b'}X}`], env: { [`K${HOSTILE}`]: '${NOT_SET_ANYWHERE}' } },
      },
    }),
  );
});
afterAll(async () => {
  await new Promise((resolve) => web.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

function expectClean(text: string) {
  const at = text.search(RAW_CONTROL);
  expect(at === -1 ? '' : JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))).toBe('');
}

describe('terminal output', () => {
  it('servers: names, descriptions and problems are escaped, one row per server', async () => {
    const run = await cli('servers');
    expectClean(run.stdout);
    expectClean(run.stderr);
    expect(run.stdout).toContain('named\\x1b[2J');
    expect(run.stdout).not.toMatch(/^forged row/m);
  }, 40_000);

  it('servers --json: valid JSON with every control character escaped', async () => {
    const run = await cli('servers', '--json');
    expectClean(run.stdout);
    const report = JSON.parse(run.stdout) as { servers: Array<{ name: string }> };
    expect(report.servers.map((server) => server.name)).toContain(`named${HOSTILE}`);
  }, 40_000);

  it('load: the manifest listing (tool names and descriptions) and the server’s stderr are escaped', async () => {
    const run = await cli('--verbose', 'load', 'hostile');
    expect(run.code).toBe(0);
    expectClean(run.stdout);
    expectClean(run.stderr);
    expect(run.stdout).toContain('echo\\x1b[2J');
    // A line break in a tool's name is escaped too: it forges no row of the listing.
    expect(run.stdout).not.toMatch(/^forged row/m);
    expect(run.stdout).toContain('\\x0aforged row');
  }, 40_000);

  it('call: an error result on stderr is escaped', async () => {
    const run = await cli('call', 'hostile', 'fail');
    expect(run.code).toBe(1);
    expectClean(run.stderr);
    expect(run.stderr).toContain('failed \\x1b[2J');
    // The server's newline is a line break, indented under the error; not `\x0a`.
    expect(run.stderr).not.toContain('\\x0a');
    expect(run.stderr).toMatch(/^ {2}forged row$/m);
  }, 40_000);

  it('call: a tool result piped from stdout is passed through byte for byte, as the server sent it', async () => {
    const run = await cli('call', 'hostile', 'echo');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`result ${HOSTILE}`);
    expectClean(run.stderr);
  }, 40_000);

  it("call: a resource link's URI and name and a blob's URI and MIME type, in the lines the CLI writes around the result, are escaped", async () => {
    const run = await cli('call', 'hostile', 'media');
    expect(run.code, run.stderr).toBe(0);
    expectClean(run.stdout);
    expect(run.stdout).toContain('[resource link: x://link\\x1b[2J');
    expect(run.stdout).toContain('[image: image/png\\x1b[2J');
    expect(run.stdout).toContain('[binary resource x://blob\\x1b[2J');
    expect(run.stdout.split('\n').filter((line) => line !== '')).toHaveLength(3);
  }, 40_000);

  it('call: a progress message from the server is escaped, C1 controls too', async () => {
    const run = await cli('call', 'hostile', 'report');
    expect(run.code).toBe(0);
    expectClean(run.stderr);
    expect(run.stderr).toMatch(/^progress 1\/2 working \\x1b\[2J.*\\x9b31m.*forged row$/m);
  }, 40_000);

  it('a server that exits at start: its stderr tail in the error is escaped', async () => {
    const run = await cli('load', 'dies');
    expect(run.code).toBe(1);
    expectClean(run.stderr);
    expect(run.stderr).toContain('starting \\x1b[2J');
  }, 40_000);

  it('an HTTP error body is escaped', async () => {
    const run = await cli('load', 'web');
    expect(run.code).toBe(1);
    expectClean(run.stderr);
  }, 40_000);
});

describe("a server's description, configured or from its instructions", () => {
  /** Colour, bell, carriage return, right-to-left override: each shown as its escape, as everywhere else. */
  const MARKED = 'harbour\u001b[31m tides\u0007 and\r charts\u202e ahead';
  const SHOWN = 'harbour\\x1b[31m tides\\x07 and\\x0d charts\\u{202e} ahead';
  let own: string;
  const ownCli = (...args: string[]) => runCli(['--config', join(own, 'mcp.json'), ...args], { cwd: own, env: { HOME: own }, timeoutMs: 30_000 });

  beforeAll(async () => {
    own = mkdtempSync(join(tmpdir(), 'mcp-terminal-described-'));
    const configured = { command: 'configured-server', description: MARKED };
    const instructed = { command: 'instructed-server' };
    writeFileSync(join(own, 'mcp.json'), JSON.stringify({ mcpServers: { configured, instructed } }));
    mkdirSync(join(own, '.ai-zen'));
    // As `index` leaves them: the servers are never started.
    const index = new ManifestIndex({ path: join(own, '.ai-zen', 'mcp-index.json') });
    const manifest = { tools: [{ name: 'ping', inputSchema: { type: 'object' as const } }], resources: [], resourceTemplates: [], prompts: [] };
    index.record('configured', configured, manifest);
    index.record('instructed', instructed, manifest, undefined, { instructions: MARKED });
    await index.flush();
  });
  afterAll(() => rmSync(own, { recursive: true, force: true }));

  it('servers: escaped in the description column, not dropped', async () => {
    const run = await ownCli('servers');
    expect(run.code).toBe(0);
    expectClean(run.stdout);
    expect(run.stdout).not.toContain('\u202e');
    expect(run.stdout).toMatch(new RegExp(`^configured .*${escapeRegExp(SHOWN)}$`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^instructed .*${escapeRegExp(SHOWN)}$`, 'm'));
  }, 40_000);

  it('search: escaped in the servers that match, not dropped', async () => {
    const run = await ownCli('search', 'harbour', 'charts');
    expect(run.code).toBe(0);
    expectClean(run.stdout);
    expect(run.stdout).not.toContain('\u202e');
    expect(run.stdout).toContain(`  configured (1 tool)  ${SHOWN}`);
    expect(run.stdout).toContain(`  instructed (1 tool)  ${SHOWN}`);
  }, 40_000);
});

describe('names that differ by an invisible mark', () => {
  it('servers and servers --json show the zero-width space, RLM and BOM escaped, so "zw" and "z\\u{200b}w" read apart; emoji joiners stay', async () => {
    const own = mkdtempSync(join(tmpdir(), 'mcp-terminal-invisible-'));
    try {
      const names = ['zw', 'z\u200bw', 'ab\u200fc', '\ufeffnotes', '👨‍👩‍👧'];
      writeFileSync(join(own, 'mcp.json'), JSON.stringify({ mcpServers: Object.fromEntries(names.map((name) => [name, { command: 'never-started' }])) }));
      const servers = (...args: string[]) => runCli(['--config', join(own, 'mcp.json'), 'servers', ...args], { cwd: own, env: { HOME: own }, timeoutMs: 30_000 });
      const [table, json] = await Promise.all([servers(), servers('--json')]);
      const firstCells = table.stdout.split('\n').slice(1, 6).map((line) => line.split(' ')[0]);
      expect(firstCells).toEqual(['zw', 'z\\u{200b}w', 'ab\\u{200f}c', '\\u{feff}notes', '👨‍👩‍👧']);
      expect(json.stdout).not.toMatch(/[\u200b\u200f\ufeff]/);
      expect((JSON.parse(json.stdout) as { servers: Array<{ name: string }> }).servers.map((server) => server.name)).toEqual(names);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 40_000);
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

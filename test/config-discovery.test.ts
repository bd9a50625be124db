/**
 * discoverMcpServers, as a specification: every config rule (docs/ARCHITECTURE.md, README "Config") over real files in temp folders.
 *
 * Layout of each test's temp folder:
 *   home/.ai-zen/mcp.json          the user file (passed as userConfigPath)
 *   repo/.git/                     marks the git root
 *   repo/.mcp.json                 the project file
 *   repo/packages/app/             cwd, so the project file is found by walking up
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  discoverMcpServers,
  enabledServers,
  formatProblem,
  type ConfigProblem,
  type DiscoverMcpServersOptions,
  type DiscoveryResult,
} from '../src/config/index.js';
import type { Logger } from '../src/logger.js';

let root: string;
let home: string;
let repo: string;
let cwd: string;
let userFile: string;
let projectFile: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-config-')));
  home = path.join(root, 'home');
  repo = path.join(root, 'repo');
  cwd = path.join(repo, 'packages', 'app');
  userFile = path.join(home, '.ai-zen', 'mcp.json');
  projectFile = path.join(repo, '.mcp.json');
  await fs.mkdir(path.join(repo, '.git'), { recursive: true });
  await fs.mkdir(cwd, { recursive: true });
});

afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await fs.rm(root, { recursive: true, force: true });
});

/** Objects are written as JSON; strings are written as they are (for broken files). */
async function write(file: string, content: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

const servers = (entries: Record<string, unknown>) => ({ mcpServers: entries });

interface Run extends DiscoveryResult {
  /** Every line sent to the logger, with its details. */
  logged: Array<{ message: string; details?: Record<string, unknown> }>;
}

/** Discovery as a user would run it from `cwd`, with an empty env unless one is given. */
async function discover(options: DiscoverMcpServersOptions = {}): Promise<Run> {
  const logged: Run['logged'] = [];
  const record = (message: string, details?: Record<string, unknown>) => logged.push({ message, details });
  const logger: Logger = { debug: record, info: record, warn: record, error: record };
  const result = await discoverMcpServers({ userConfigPath: userFile, cwd, env: {}, logger, ...options });
  return { ...result, logged };
}

const errors = (problems: ConfigProblem[]) => problems.filter((problem) => problem.severity === 'error');
const warnings = (problems: ConfigProblem[]) => problems.filter((problem) => problem.severity === 'warning');

describe('where servers come from', () => {
  it('reads the user file, recording scope "user" and the absolute source path', async () => {
    await write(userFile, servers({ github: { command: 'npx' } }));
    const { servers: found, problems } = await discover();
    expect(found.github).toMatchObject({ name: 'github', scope: 'user', source: userFile, transport: 'stdio' });
    expect(problems).toEqual([]);
  });

  it('reads <projectRoot>/.mcp.json with scope "project" when projectRoot is given', async () => {
    const elsewhere = path.join(root, 'elsewhere');
    await write(path.join(elsewhere, '.mcp.json'), servers({ db: { url: 'http://127.0.0.1:1/mcp' } }));
    const { servers: found } = await discover({ projectRoot: elsewhere });
    expect(found.db).toMatchObject({ scope: 'project', source: path.join(elsewhere, '.mcp.json') });
  });

  it('without projectRoot, finds the nearest .mcp.json walking up from cwd', async () => {
    await write(projectFile, servers({ db: { command: 'db' } }));
    const { servers: found } = await discover();
    expect(found.db?.source).toBe(projectFile);
  });

  it('reads only the nearest .mcp.json when several folders on the way up have one', async () => {
    await write(projectFile, servers({ outer: { command: 'outer' } }));
    await write(path.join(repo, 'packages', '.mcp.json'), servers({ inner: { command: 'inner' } }));
    const { servers: found } = await discover();
    expect(Object.keys(found)).toEqual(['inner']);
  });

  it('stops walking at the git root: a .mcp.json above it is not read', async () => {
    await write(path.join(root, '.mcp.json'), servers({ aboveGitRoot: { command: 'x' } }));
    const { servers: found, problems } = await discover();
    expect(Object.keys(found)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('treats missing files as empty, with no problem', async () => {
    const run = await discover();
    expect(Object.keys(run.servers)).toEqual([]);
    expect(run.problems).toEqual([]);
    expect(run.logged).toEqual([]);
  });

  it('reads ~/.ai-zen/mcp.json (from os.homedir) when no userConfigPath is given', async () => {
    vi.spyOn(os, 'homedir').mockReturnValue(home);
    await write(userFile, servers({ fromHome: { command: 'x' } }));
    const { servers: found } = await discover({ userConfigPath: undefined });
    expect(found.fromHome?.source).toBe(userFile);
  });

  it('resolves a relative userConfigPath and projectRoot against cwd', async () => {
    await write(path.join(cwd, 'my.json'), servers({ mine: { command: 'x' } }));
    await write(path.join(cwd, 'proj', '.mcp.json'), servers({ theirs: { command: 'y' } }));
    const { servers: found } = await discover({ userConfigPath: 'my.json', projectRoot: 'proj' });
    expect(found.mine?.source).toBe(path.join(cwd, 'my.json'));
    expect(found.theirs?.source).toBe(path.join(cwd, 'proj', '.mcp.json'));
  });

  describe('configPaths (the CLI --config) replace discovery', () => {
    it('reads only the named files, with scope "explicit"', async () => {
      await write(userFile, servers({ user: { command: 'x' } }));
      await write(projectFile, servers({ project: { command: 'x' } }));
      const explicit = path.join(root, 'a.json');
      await write(explicit, servers({ named: { command: 'x' } }));
      const { servers: found } = await discover({ configPaths: [explicit] });
      expect(Object.keys(found)).toEqual(['named']);
      expect(found.named).toMatchObject({ scope: 'explicit', source: explicit });
    });

    it('lets a later file win a name clash, and reports the clash as a warning', async () => {
      const first = path.join(root, 'first.json');
      const second = path.join(root, 'second.json');
      await write(first, servers({ shared: { command: 'first' } }));
      await write(second, servers({ shared: { command: 'second' } }));
      const { servers: found, problems } = await discover({ configPaths: [first, second] });
      expect(found.shared?.config.command).toBe('second');
      expect(problems).toEqual([
        expect.objectContaining({ severity: 'warning', file: second, server: 'shared', message: expect.stringContaining(first) }),
      ]);
    });

    it('reports a named file that does not exist as an error (a typo in --config must not pass silently)', async () => {
      const missing = path.join(root, 'missing.json');
      const { problems } = await discover({ configPaths: [missing] });
      expect(problems).toEqual([expect.objectContaining({ severity: 'error', file: missing, message: 'file not found' })]);
    });

    it('reads a file named twice only once (no clash with itself)', async () => {
      const file = path.join(root, 'a.json');
      await write(file, servers({ one: { command: 'x' } }));
      const { problems } = await discover({ configPaths: [file, 'a.json'], cwd: root });
      expect(problems).toEqual([]);
    });
  });
});

describe('name clashes between the user and the project file', () => {
  it('lets the project entry win, keeps the other user entries, and warns naming both files', async () => {
    await write(userFile, servers({ shared: { command: 'from-user' }, userOnly: { command: 'u' } }));
    await write(projectFile, servers({ shared: { command: 'from-project' } }));
    const { servers: found, problems } = await discover();
    expect(found.shared).toMatchObject({ scope: 'project', source: projectFile, config: { command: 'from-project' } });
    expect(found.userOnly?.scope).toBe('user');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ severity: 'warning', file: projectFile, server: 'shared' });
    expect(problems[0]?.message).toContain(userFile);
  });
});

describe('transport: the declared field first, else command → stdio, url → http', () => {
  const url = 'https://mcp.example.com/mcp';
  it.each([
    { written: { command: 'x' }, transport: 'stdio' },
    { written: { url }, transport: 'http' },
    { written: { type: 'stdio', command: 'x' }, transport: 'stdio' },
    { written: { type: 'http', url }, transport: 'http' },
    { written: { type: 'streamable-http', url }, transport: 'http' },
    { written: { type: 'streamableHttp', url }, transport: 'http' },
    { written: { type: 'sse', url }, transport: 'sse' },
    { written: { type: 'SSE', url }, transport: 'sse' },
    { written: { transport: 'sse', url }, transport: 'sse' },
    { written: { transportType: 'sse', url }, transport: 'sse' },
    { written: { type: 'sse', url, command: 'also-there' }, transport: 'sse' },
  ])('$written → $transport', async ({ written, transport }) => {
    await write(userFile, servers({ s: written }));
    const { servers: found, problems } = await discover();
    expect(found.s?.transport).toBe(transport);
    expect(problems).toEqual([]);
  });

  it('prefers type over transport over transportType, warning about each one it ignores', async () => {
    await write(userFile, servers({ s: { type: 'sse', transport: 'http', transportType: 'sse', url } }));
    const { servers: found, problems } = await discover();
    expect(found.s?.transport).toBe('sse');
    expect(problems).toEqual([expect.objectContaining({ severity: 'warning', server: 's', field: 'transport' })]);
  });
});

describe('an entry that fails validation is skipped with an error naming file, server and field; the rest load', () => {
  const url = 'https://mcp.example.com/mcp';
  it.each([
    { why: 'args is a string', entry: { command: 'x', args: '--flag' }, field: 'args' },
    { why: 'an args element is not a string', entry: { command: 'x', args: ['ok', 3] }, field: 'args[1]' },
    { why: 'env is an array', entry: { command: 'x', env: ['A=1'] }, field: 'env' },
    { why: 'an env value is not a string', entry: { command: 'x', env: { PORT: 8080 } }, field: 'env.PORT' },
    { why: 'a header value is not a string', entry: { url, headers: { 'X-Retries': 3 } }, field: 'headers.X-Retries' },
    { why: 'headers is a string', entry: { url, headers: 'Authorization: x' }, field: 'headers' },
    { why: 'url is not a URL', entry: { url: 'not a url' }, field: 'url' },
    { why: 'url is not http(s)', entry: { url: 'ftp://files.example.com' }, field: 'url' },
    { why: 'url is a number', entry: { url: 80 }, field: 'url' },
    { why: 'a stdio server has no command', entry: { type: 'stdio', url }, field: 'command' },
    { why: 'a stdio server has an empty command', entry: { command: '' }, field: 'command' },
    { why: 'command is not a string', entry: { command: ['npx', 'x'] }, field: 'command' },
    { why: 'an http server has no url', entry: { type: 'http', command: 'x' }, field: 'url' },
    { why: 'an sse server has no url', entry: { transport: 'sse', command: 'x' }, field: 'url' },
    { why: 'the transport spelling is unknown', entry: { type: 'websocket', url }, field: 'type' },
    { why: 'transport is not a string', entry: { transport: 1, command: 'x' }, field: 'transport' },
    { why: 'cwd is not a string', entry: { command: 'x', cwd: 1 }, field: 'cwd' },
    { why: 'description is not a string', entry: { command: 'x', description: { en: 'x' } }, field: 'description' },
    { why: 'disabled is not a boolean', entry: { command: 'x', disabled: 'yes' }, field: 'disabled' },
    { why: 'args is null', entry: { command: 'x', args: null }, field: 'args' },
    { why: 'there is neither command nor url nor type', entry: { args: ['x'] }, field: undefined },
    { why: 'the entry is a string', entry: 'npx server', field: undefined },
    { why: 'the entry is null', entry: null, field: undefined },
    { why: 'the entry is an array', entry: [{ command: 'x' }], field: undefined },
  ])('when $why', async ({ entry, field }) => {
    await write(projectFile, servers({ good: { command: 'ok' }, bad: entry, alsoGood: { url } }));
    const { servers: found, problems, logged } = await discover();
    expect(Object.keys(found)).toEqual(['good', 'alsoGood']);
    const problem = errors(problems)[0];
    expect(errors(problems)).toHaveLength(1);
    expect(problem).toMatchObject({ file: projectFile, server: 'bad' });
    expect(problem?.field).toBe(field);
    expect(problem?.message).toContain('"bad"');
    if (field) expect(problem?.message).toContain(`"${field}"`);
    expect(logged.map((line) => line.message)).toEqual([formatProblem(problem!)]);
  });

  it('reports every bad field of a server, not only the first', async () => {
    await write(projectFile, servers({ bad: { command: 1, args: 'x', env: { A: 1 } } }));
    const { problems } = await discover();
    expect(problems.map((problem) => problem.field).sort()).toEqual(['args', 'command', 'env.A']);
  });

  it('rejects an empty server name', async () => {
    await write(projectFile, servers({ '': { command: 'x' } }));
    const { servers: found, problems } = await discover();
    expect(Object.keys(found)).toEqual([]);
    expect(problems).toEqual([expect.objectContaining({ severity: 'error', server: '' })]);
  });
});

describe('a file that cannot be used is one problem for that file, and the other file still loads', () => {
  it.each([
    {
      why: 'a trailing comma',
      text: '{\n  "mcpServers": {\n    "a": { "command": "x", }\n  }\n}',
      line: 3,
      column: 28,
    },
    // Node 20 words this one "Unexpected token '}', …" with a slice of the file and no position.
    { why: 'a missing value', text: '{"mcpServers": {"a": }}', line: 1, column: 22 },
    { why: 'a missing closing brace', text: '{"mcpServers": {}', line: 1, column: 18 },
    { why: 'an empty file', text: '', line: 1, column: 1 },
    { why: 'an unterminated string', text: '{\n"mcpServers": {"a": {"command": "x', line: 2, column: 35 },
    { why: 'Windows line endings', text: '{\r\n  "mcpServers": {\r\n    "a": 1,\r\n  }\r\n}', line: 4, column: 3 },
    { why: 'a comment (JSONC is not JSON)', text: '{\n  // mine\n  "mcpServers": {}\n}', line: 2, column: 3 },
    { why: 'text after the JSON value', text: '{"mcpServers": {}} {}', line: 1, column: 20 },
  ])('invalid JSON ($why) is reported with line $line, column $column', async ({ text, line, column }) => {
    await write(userFile, servers({ fromUser: { command: 'x' } }));
    await write(projectFile, text);
    const { servers: found, problems } = await discover();
    expect(Object.keys(found)).toEqual(['fromUser']);
    expect(problems).toEqual([expect.objectContaining({ severity: 'error', file: projectFile, line, column })]);
    expect(problems[0]?.message).toContain(`line ${line}, column ${column}`);
    expect(formatProblem(problems[0]!)).toMatch(new RegExp(`^${escapeRegExp(projectFile)}:${line}:${column}: `));
  });

  it.each([
    { why: 'the top level is an array', content: [{ mcpServers: {} }], field: undefined },
    { why: 'the top level is a string', content: '"mcpServers"', field: undefined },
    { why: 'mcpServers is missing', content: { server: { a: { command: 'x' } } }, field: 'mcpServers' },
    { why: 'mcpServers is an array', content: { mcpServers: [{ command: 'x' }] }, field: 'mcpServers' },
    { why: 'mcpServers is null', content: { mcpServers: null }, field: 'mcpServers' },
    { why: 'mcpServers is a string', content: { mcpServers: 'a' }, field: 'mcpServers' },
    { why: 'mcpServers only exists under __proto__', content: '{"__proto__": {"mcpServers": {"a": {"command": "x"}}}}', field: 'mcpServers' },
  ])('is an error when $why', async ({ content, field }) => {
    await write(userFile, servers({ fromUser: { command: 'x' } }));
    await write(projectFile, content);
    const { servers: found, problems } = await discover();
    expect(Object.keys(found)).toEqual(['fromUser']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ severity: 'error', file: projectFile });
    expect(problems[0]?.field).toBe(field);
  });

  it('accepts a file that starts with a byte-order mark', async () => {
    await write(projectFile, '\uFEFF' + JSON.stringify(servers({ a: { command: 'x' } })));
    const { servers: found, problems } = await discover();
    expect(found.a).toBeDefined();
    expect(problems).toEqual([]);
  });

  it('reports a directory where the file should be, without crashing', async () => {
    await fs.mkdir(projectFile);
    await write(userFile, servers({ fromUser: { command: 'x' } }));
    const { servers: found, problems } = await discover();
    expect(Object.keys(found)).toEqual(['fromUser']);
    expect(problems).toEqual([expect.objectContaining({ severity: 'error', file: projectFile, message: expect.stringMatching(/directory/) })]);
  });

  it('reports a symlink loop where the file should be, without crashing', async () => {
    await fs.symlink(projectFile, projectFile);
    const { problems } = await discover();
    expect(problems).toEqual([expect.objectContaining({ severity: 'error', file: projectFile, message: expect.stringMatching(/loop/) })]);
  });

  it.skipIf(process.platform === 'win32')('reports a FIFO where the file should be instead of waiting for a writer', async () => {
    execFileSync('mkfifo', [projectFile]);
    const { problems } = await discover();
    expect(problems).toEqual([expect.objectContaining({ severity: 'error', file: projectFile, message: expect.stringMatching(/not a regular file/) })]);
  });

  it('follows a symlink to a real file', async () => {
    const real = path.join(root, 'real.json');
    await write(real, servers({ linked: { command: 'x' } }));
    await fs.symlink(real, projectFile);
    const { servers: found } = await discover();
    expect(found.linked?.source).toBe(projectFile);
  });
});

describe('${VAR} and ${VAR:-default} expansion', () => {
  const env = { HOME_DIR: '/home/me', TOKEN: 'tok-123', EMPTY: '', HOST: 'mcp.example.com' };

  it.each([
    { where: 'command', entry: { command: '${HOME_DIR}/bin/server' }, read: (c: any) => c.command, expected: '/home/me/bin/server' },
    { where: 'args', entry: { command: 'x', args: ['--root', '${HOME_DIR}', 'a${TOKEN}b'] }, read: (c: any) => c.args, expected: ['--root', '/home/me', 'atok-123b'] },
    { where: 'env values', entry: { command: 'x', env: { GITHUB_TOKEN: '${TOKEN}' } }, read: (c: any) => c.env.GITHUB_TOKEN, expected: 'tok-123' },
    { where: 'url', entry: { url: 'https://${HOST}/mcp' }, read: (c: any) => c.url, expected: 'https://mcp.example.com/mcp' },
    { where: 'header values', entry: { url: 'https://x.example.com', headers: { Authorization: 'Bearer ${TOKEN}' } }, read: (c: any) => c.headers.Authorization, expected: 'Bearer tok-123' },
    { where: 'a default, when unset', entry: { command: '${NOPE:-fallback}' }, read: (c: any) => c.command, expected: 'fallback' },
    { where: 'a default, when empty (as in a shell)', entry: { command: '${EMPTY:-fallback}' }, read: (c: any) => c.command, expected: 'fallback' },
    { where: 'a default, when set', entry: { command: '${TOKEN:-fallback}' }, read: (c: any) => c.command, expected: 'tok-123' },
    { where: 'a default that is empty', entry: { command: 'a${NOPE:-}b' }, read: (c: any) => c.command, expected: 'ab' },
    { where: 'a default holding a URL', entry: { url: '${NOPE:-http://127.0.0.1:3000/mcp}' }, read: (c: any) => c.url, expected: 'http://127.0.0.1:3000/mcp' },
    { where: 'not $VAR without braces', entry: { command: '$TOKEN' }, read: (c: any) => c.command, expected: '$TOKEN' },
    { where: 'not a malformed reference', entry: { command: '${1X} ${} ${TOKEN' }, read: (c: any) => c.command, expected: '${1X} ${} ${TOKEN' },
    // A project entry's cwd is a folder of the project (test/project-server-folder.test.ts).
    { where: 'not cwd', entry: { command: 'x', cwd: '${HOME_DIR}' }, read: (c: any) => path.relative(path.dirname(projectFile), c.cwd), expected: '${HOME_DIR}' },
    { where: 'not description', entry: { command: 'x', description: 'costs ${TOKEN}' }, read: (c: any) => c.description, expected: 'costs ${TOKEN}' },
    { where: 'not header names', entry: { url: 'https://x.example.com', headers: { '${TOKEN}': 'v' } }, read: (c: any) => Object.keys(c.headers), expected: ['${TOKEN}'] },
  ])('expands in $where', async ({ entry, read, expected }) => {
    await write(projectFile, servers({ s: entry }));
    const { servers: found, problems } = await discover({ env });
    expect(problems).toEqual([]);
    expect(read(found.s?.config)).toEqual(expected);
  });

  it('uses process.env when no env is given', async () => {
    vi.stubEnv('MCP_CONFIG_TEST_VAR', 'from-process');
    await write(projectFile, servers({ s: { command: '${MCP_CONFIG_TEST_VAR}' } }));
    const result = await discoverMcpServers({ userConfigPath: userFile, cwd });
    expect(result.servers.s?.config.command).toBe('from-process');
  });

  it('keeps a server whose variable is unset, expands it to "" and warns naming the variable and field', async () => {
    await write(projectFile, servers({ gh: { command: 'x', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', OTHER: '${GITHUB_TOKEN}' } } }));
    const { servers: found, problems } = await discover({ env: {} });
    expect(found.gh?.config.env).toEqual({ GITHUB_TOKEN: '', OTHER: '' });
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'warning', file: projectFile, server: 'gh', field: 'env.GITHUB_TOKEN' }),
    ]);
    expect(problems[0]?.message).toContain('GITHUB_TOKEN');
  });

  it('does not warn about unset variables of a disabled server (it is never started)', async () => {
    await write(projectFile, servers({ off: { command: 'x', disabled: true, env: { T: '${GITHUB_TOKEN}' } } }));
    const { servers: found, problems } = await discover();
    expect(found.off?.disabled).toBe(true);
    expect(problems).toEqual([]);
  });

  it('checks the url after expansion', async () => {
    await write(projectFile, servers({ s: { url: '${HOST}/mcp' } }));
    const { servers: found, problems } = await discover({ env });
    expect(found.s).toBeUndefined();
    expect(errors(problems)).toEqual([expect.objectContaining({ server: 's', field: 'url' })]);
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'does not read ${%s} from Object.prototype: it is unset',
    async (name) => {
      await write(projectFile, servers({ s: { command: `x\${${name}}` } }));
      const { servers: found, problems } = await discover({ env: {} });
      expect(found.s?.config.command).toBe('x');
      expect(warnings(problems)).toEqual([expect.objectContaining({ server: 's', field: 'command' })]);
    },
  );
});

describe('disabled servers', () => {
  it('are listed with disabled: true, and enabledServers leaves them out', async () => {
    await write(projectFile, servers({ on: { command: 'a' }, off: { command: 'b', disabled: true }, explicitOn: { command: 'c', disabled: false } }));
    const { servers: found } = await discover();
    expect(found.on?.disabled).toBe(false);
    expect(found.off?.disabled).toBe(true);
    expect(found.explicitOn?.disabled).toBe(false);
    const enabled = enabledServers(found);
    expect(Object.keys(enabled)).toEqual(['on', 'explicitOn']);
    expect(enabled.on).toBe(found.on?.config);
    expect(Object.getPrototypeOf(enabled)).toBeNull();
  });

  it('are still validated: a broken disabled entry is an error, not a listing', async () => {
    await write(projectFile, servers({ off: { command: 'b', args: 'x', disabled: true } }));
    const { servers: found, problems } = await discover();
    expect(found.off).toBeUndefined();
    expect(errors(problems)).toEqual([expect.objectContaining({ server: 'off', field: 'args' })]);
  });
});

describe('what a discovered server holds', () => {
  it('keeps unknown fields and the declared ones in config, and copies description', async () => {
    const entry = {
      command: 'npx',
      args: ['-y', 'server'],
      cwd: '/srv',
      description: 'GitHub repositories and issues',
      alwaysAllow: ['list_issues'],
      timeout: 30,
      nested: { deep: [1, 2] },
    };
    await write(projectFile, servers({ gh: entry }));
    const { servers: found } = await discover();
    expect(found.gh).toEqual({
      name: 'gh',
      config: entry,
      transport: 'stdio',
      scope: 'project',
      source: projectFile,
      description: 'GitHub repositories and issues',
      disabled: false,
      written: entry,
    });
    expect(Object.getPrototypeOf(found)).toBeNull();
  });

  it('loads 10,000 servers from one file (timing lives in bench/config-parse.bench.ts)', async () => {
    const many: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++) many[`server-${i}`] = { command: 'node', args: [`${i}.js`], env: { N: '${N:-1}' } };
    await write(projectFile, servers(many));
    const { servers: found, problems } = await discover();
    expect(Object.keys(found)).toHaveLength(10_000);
    expect(problems).toEqual([]);
  });
});

describe('secrets: env and header values never appear in a problem or a log line', () => {
  const SECRET = 'sk-live-DO-NOT-LEAK-42';

  it.each([
    {
      why: 'a server skipped for a bad field next to secret values',
      text: JSON.stringify(servers({ s: { command: 'x', args: 'bad', env: { TOKEN: SECRET } } })),
      env: {},
    },
    {
      why: 'a url with a secret that is not a valid http url',
      text: JSON.stringify(servers({ s: { url: `ftp://user:${SECRET}@host/x` } })),
      env: {},
    },
    {
      why: 'an unset variable next to an expanded secret',
      text: JSON.stringify(servers({ s: { url: 'https://x.example.com', headers: { Authorization: 'Bearer ${TOKEN}', X: '${UNSET}' } } })),
      env: { TOKEN: SECRET },
    },
    {
      why: 'invalid JSON whose parser message would quote the text',
      text: `{"mcpServers": {"s": {"command": "x", "env": {"TOKEN": "${SECRET}", "B": tru}}}}`,
      env: {},
    },
    {
      why: 'invalid JSON inside a secret string',
      text: `{"mcpServers": {"s": {"headers": {"Authorization": "${SECRET}\n"}}}}`,
      env: {},
    },
    {
      why: 'a clash between two definitions with secret env values',
      text: JSON.stringify(servers({ shared: { command: 'x', env: { TOKEN: SECRET } } })),
      env: {},
      alsoUser: true,
    },
  ])('for $why', async ({ text, env, alsoUser }) => {
    await write(projectFile, text);
    if (alsoUser) await write(userFile, servers({ shared: { command: 'y', env: { TOKEN: SECRET } } }));
    const run = await discover({ env });
    expect(run.problems.length).toBeGreaterThan(0);
    expect(run.logged.length).toBe(run.problems.length);
    expect(JSON.stringify(run.problems)).not.toContain(SECRET);
    expect(JSON.stringify(run.logged)).not.toContain(SECRET);
    expect(run.problems.map(formatProblem).join('\n')).not.toContain(SECRET);
  });
});

describe('hostile names cannot pollute prototypes', () => {
  afterEach(() => {
    // Clean up if a test ever did pollute, so one failure does not cascade.
    delete (Object.prototype as Record<string, unknown>).polluted;
  });

  const hostile = '{"mcpServers": {' +
    '"__proto__": {"command": "a", "polluted": "yes", "env": {"__proto__": "x", "constructor": "y"}},' +
    '"constructor": {"command": "b", "headers": {"prototype": "z"}, "url": "https://x.example.com"},' +
    '"prototype": {"url": "https://x.example.com", "headers": {"__proto__": "h", "polluted": "yes"}},' +
    '"toString": {"command": "d"}' +
    '}}';

  it('keeps __proto__, constructor, prototype and toString as ordinary server names', async () => {
    await write(projectFile, hostile);
    const { servers: found, problems } = await discover();
    // Only the warning that "constructor" gives both a command and a url.
    expect(problems).toEqual([expect.objectContaining({ severity: 'warning', server: 'constructor', field: 'url' })]);
    expect(Object.keys(found)).toEqual(['__proto__', 'constructor', 'prototype', 'toString']);
    expect(Object.getPrototypeOf(found)).toBeNull();
    expect(Object.hasOwn(found, '__proto__')).toBe(true);
    expect(found['__proto__']?.config.command).toBe('a');
    expect(found['constructor' as string]?.transport).toBe('stdio');
  });

  it('keeps __proto__ / constructor keys inside env and headers as plain keys', async () => {
    await write(projectFile, hostile);
    const { servers: found } = await discover();
    const env = found['__proto__']?.config.env ?? {};
    expect(Object.keys(env)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(env)).toBeNull();
    expect(Object.keys(found.prototype?.config.headers ?? {})).toEqual(['__proto__', 'polluted']);
    expect(Object.keys(found['__proto__']?.config ?? {})).toContain('polluted');
  });

  it('skips an entry whose env or headers "__proto__" is not a string, as any other key (it crashed discovery: "text.includes is not a function")', async () => {
    await write(
      projectFile,
      '{"mcpServers": {"a": {"command": "node", "env": {"__proto__": {"x": "y"}}}, "b": {"url": "https://x.example.com", "headers": {"__proto__": 1}}, "c": {"command": "node"}}}',
    );
    const { servers: found, problems } = await discover();
    expect(Object.keys(found)).toEqual(['c']);
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'error', server: 'a', field: 'env.__proto__', message: 'server "a" skipped: "env.__proto__" must be a string' }),
      expect.objectContaining({ severity: 'error', server: 'b', field: 'headers.__proto__', message: 'server "b" skipped: "headers.__proto__" must be a string' }),
    ]);
  });

  it('changes no prototype: ({}).polluted stays undefined, also after enabledServers', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    await write(projectFile, hostile);
    await write(userFile, hostile);
    const { servers: found } = await discover();
    const enabled = enabledServers(found);
    expect(Object.keys(enabled)).toEqual(['__proto__', 'constructor', 'prototype', 'toString']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

describe('the logger', () => {
  it('gets every problem as a warning, formatted file:line:column: message', async () => {
    await write(userFile, '{');
    await write(projectFile, servers({ bad: { command: 1 }, gh: { command: 'x', env: { T: '${T}' } } }));
    const { problems, logged } = await discover();
    expect(problems).toHaveLength(3);
    expect(logged.map((line) => line.message)).toEqual(problems.map(formatProblem));
    expect(logged[0]?.message).toMatch(/mcp\.json:1:2: /);
    expect(logged[1]?.details).toEqual({ severity: 'error', file: projectFile, server: 'bad', field: 'command' });
  });

  it('is optional: discovery is silent without one', async () => {
    await write(projectFile, '{');
    const write_ = vi.spyOn(process.stderr, 'write');
    const result = await discoverMcpServers({ userConfigPath: userFile, cwd });
    expect(result.problems).toHaveLength(1);
    expect(write_).not.toHaveBeenCalled();
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

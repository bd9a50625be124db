/**
 * A config file with a key written twice is reported; one over the size limit is refused with a
 * clear problem; an entry nested thousands of levels deep is skipped with a problem.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverMcpServers, formatProblem } from '../src/config/index.js';
import { findDuplicateKeys } from '../src/config/duplicate-keys.js';
import { MAX_CONFIG_FILE_BYTES } from '../src/config/read-config-file.js';
import { McpConnectionManager } from '../src/manager.js';
import { MAX_ARGUMENT_DEPTH } from '../machines/errors.js';

let root: string;
let file: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-config-checks-'));
  file = path.join(root, 'mcp.json');
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const discover = () => discoverMcpServers({ configPaths: [file], env: {} });

describe('keys written twice', () => {
  it('reports a field written twice in a server entry, naming the server, line and column', async () => {
    await fs.writeFile(file, '{"mcpServers": {\n  "tool": {\n    "command": "safe-tool",\n    "command": "something-else"\n  }\n}}');
    const { servers, problems } = await discover();
    expect(servers.tool?.config.command).toBe('something-else');
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'warning', server: 'tool', line: 4, column: 5, message: expect.stringMatching(/"command" is written twice in "mcpServers.tool"/) }),
    ]);
  });

  it('reports a server name written twice', async () => {
    await fs.writeFile(file, '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}');
    const { problems } = await discover();
    expect(problems).toEqual([expect.objectContaining({ server: 'a', message: expect.stringMatching(/"a" is written twice in "mcpServers"/) })]);
  });

  it('tells keys from values: escaped quotes, strings holding braces, arrays of objects', () => {
    const text = JSON.stringify({ a: 'x", "a": "y', b: ['{', { a: 1 }, { a: 2 }], c: { d: '\\' }, e: { '"q': 1 } });
    expect(findDuplicateKeys(text)).toEqual([]);
    expect(findDuplicateKeys('{"x": {"k\\"": 1, "k\\"": 2}}')).toEqual([{ path: ['x'], key: 'k"', offset: 17 }]);
  });

  it('scans a 100,000-deep nesting without overflowing', () => {
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    expect(findDuplicateKeys(deep)).toEqual([]);
  });
});

describe('size limit', () => {
  it('refuses a file over the limit with a problem that names the limit, and reads nothing from it', async () => {
    const padding = ' '.repeat(MAX_CONFIG_FILE_BYTES);
    await fs.writeFile(file, `{"mcpServers": {"big": {"command": "x"}}}${padding}`);
    const { servers, problems } = await discover();
    expect(servers.big).toBeUndefined();
    // Just over the limit is 16 MB rounded: in bytes, so the file does not read as being at the limit.
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining('is 16,777,257 bytes; the limit is 16 MB (16,777,216 bytes)') }),
    ]);
  });
});

describe('nesting limit', () => {
  const serverEverything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

  it('skips an entry with a field nested thousands of levels deep, naming the field, and keeps a deep-enough one', async () => {
    // Unknown fields are kept; one nested 6,000 levels deep used to make every connect of the
    // server fail with "Maximum call stack size exceeded" (the definition is written as JSON).
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const entry = (levels: number) => `{"command": "node", "args": [${JSON.stringify(serverEverything)}, "stdio"], "extra": ${deep(levels)}}`;
    await fs.writeFile(file, `{"mcpServers": {"deep": ${entry(6_000)}, "fine": ${entry(MAX_ARGUMENT_DEPTH - 1)}}}`);
    const { servers, problems } = await discover();
    // Names only: a diff that printed the deep entry would overflow the stack itself.
    expect(Object.keys(servers)).toEqual(['fine']);
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        server: 'deep',
        field: 'extra',
        message: `server "deep" skipped: "extra" is nested deeper than ${MAX_ARGUMENT_DEPTH} levels, the most this client reads: flatten it or remove it`,
      }),
    ]);

    const manager = new McpConnectionManager();
    try {
      const manifest = await manager.connect('fine', servers.fine!.config, { connectTimeoutMs: 20_000 });
      expect(manifest.tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await manager.disconnectAll();
    }
  }, 30_000);
});

describe('a url with a user name or password', () => {
  it('is reported as the entry is read, naming the server and field and quoting no value, not only when it connects', async () => {
    await fs.writeFile(file, JSON.stringify({ mcpServers: { docs: { url: 'http://me:s3cret-password@127.0.0.1:9/mcp' } } }));
    const { servers, problems } = await discover();
    expect(Object.keys(servers)).toEqual(['docs']);
    expect(problems).toEqual([
      {
        severity: 'warning',
        file,
        server: 'docs',
        field: 'url',
        message: 'server "docs": the "url" carries a user name or password, which fetch refuses to send, so it cannot connect: give the credential in "headers" (an "Authorization" header) instead',
      },
    ]);
  });
});

describe('env and header names with control characters', () => {
  it('skips the entry, naming the server and the key escaped, never the value', async () => {
    await fs.writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          local: { command: 'x', env: { 'K\u001b[1m': 'env-secret-value' } },
          remote: { url: 'http://127.0.0.1:9/mcp', headers: { 'X-Key\r\nInjected': 'header-secret-value' } },
          fine: { command: 'x', env: { TOKEN: 'v' } },
        },
      }),
    );
    const { servers, problems } = await discover();
    expect(Object.keys(servers)).toEqual(['fine']);
    expect(problems).toEqual([
      {
        severity: 'error',
        file,
        server: 'local',
        field: 'env',
        message: 'server "local" skipped: the "env" key "K\\x1b[1m" holds a control character, which no variable name can: rename or remove it',
      },
      {
        severity: 'error',
        file,
        server: 'remote',
        field: 'headers',
        message: 'server "remote" skipped: the "headers" key "X-Key\\x0d\\x0aInjected" holds a control character, which no header name can: rename or remove it',
      },
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/secret-value/);
  });
});

describe('server names and field paths with control characters', () => {
  // C0, DEL, C1 and the bidi controls: what a terminal acts on.
  const RAW_CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

  it('words every problem with the name and the field path escaped, so no warning carries a raw control character', async () => {
    // Written by hand: a duplicate key needs the raw text.
    await fs.writeFile(
      file,
      '{"mcpServers": {"bad\\u001b[31mname": {"command": 5}, "ok": {"command": "x", "env": {"K\\u202eX": 5}},' +
        ' "twice\\u0007": {"command": "x"}, "twice\\u0007": {"command": "y"}}}',
    );
    const warnings: string[] = [];
    const logger = { debug: () => {}, info: () => {}, warn: (message: string) => warnings.push(message), error: () => {} };
    const { problems } = await discoverMcpServers({ configPaths: [file], env: {}, logger });
    expect(problems.map((problem) => problem.message)).toEqual([
      'key "twice\\x07" is written twice in "mcpServers"; the last one is used: remove the other',
      'server "bad\\x1b[31mname" skipped: "command" must be a string',
      'server "ok" skipped: "env.K\\u{202e}X" must be a string',
    ]);
    expect(warnings).toHaveLength(3);
    for (const line of [...warnings, ...problems.map(formatProblem)]) expect(line).not.toMatch(RAW_CONTROL);
  });

  it('prints a file path with control characters escaped, and keeps problem.file as it is', async () => {
    const folder = path.join(root, 'evil\x1b[31m\u202e');
    await fs.mkdir(folder);
    const odd = path.join(folder, 'mcp.json');
    await fs.writeFile(odd, '{"mcpServers": {"bad": {"command": 5}}}');
    const warnings: string[] = [];
    const logger = { debug: () => {}, info: () => {}, warn: (message: string) => warnings.push(message), error: () => {} };
    const { problems } = await discoverMcpServers({ configPaths: [odd], env: {}, logger });
    expect(problems.map((problem) => problem.file)).toEqual([odd]);
    expect(problems.map(formatProblem)).toEqual([`${path.join(root, 'evil\\x1b[31m\\u{202e}')}/mcp.json: server "bad" skipped: "command" must be a string`]);
    expect(warnings).toHaveLength(1);
    for (const line of [...warnings, ...problems.map(formatProblem)]) expect(line).not.toMatch(RAW_CONTROL);
  });
});

describe('an entry with both "command" and "url"', () => {
  it('warns, naming the server, both fields and the one used, unless a "type" chooses', async () => {
    await fs.writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          both: { command: 'x', url: 'http://127.0.0.1:9/mcp' },
          typed: { type: 'http', command: 'x', url: 'http://127.0.0.1:9/mcp' },
        },
      }),
    );
    const { servers, problems } = await discover();
    expect(servers.both?.transport).toBe('stdio');
    expect(servers.typed?.transport).toBe('http');
    expect(problems).toEqual([
      {
        severity: 'warning',
        file,
        server: 'both',
        field: 'url',
        message: 'server "both": both "command" and "url" are given and no "type": "command" is used (stdio) and "url" is ignored; set "type" to "http" to use the url',
      },
    ]);
  });
});

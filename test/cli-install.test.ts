/**
 * `install` and `search --registry` against an MCP Registry served on 127.0.0.1 by the test, with
 * documents in the official format (API v0.1, server.json): npm, pypi, oci and remote servers, a
 * deprecated and a deleted one, URL variables, a secret header, a malformed document, and a
 * registry whose listing pages forever.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configHome, USER_FILE_TEXT } from './support/config-command-home.js';
import { cliInTerminal } from './support/terminal.js';

const PUBLISHED_SECRET = 'sk-published-in-the-document-123';

function official(status: 'active' | 'deprecated' | 'deleted', statusMessage?: string) {
  return {
    'io.modelcontextprotocol.registry/official': {
      status,
      ...(statusMessage ? { statusMessage } : {}),
      publishedAt: '2026-10-01T10:00:00Z',
      updatedAt: '2026-10-02T10:00:00Z',
      isLatest: true,
    },
  };
}

const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

const weather = {
  $schema: SCHEMA,
  name: 'io.github.example/weather',
  description: 'Forecasts and current weather',
  version: '1.4.2',
  packages: [
    {
      registryType: 'mcpb',
      registryBaseUrl: 'https://github.com',
      identifier: 'https://github.com/example/weather/releases/download/v1.4.2/weather.mcpb',
      version: '1.4.2',
      fileSha256: 'a'.repeat(64),
      transport: { type: 'stdio' },
    },
    {
      registryType: 'npm',
      registryBaseUrl: 'https://registry.npmjs.org',
      identifier: '@example/weather-mcp',
      version: '1.4.2',
      runtimeHint: 'npx',
      transport: { type: 'stdio' },
      packageArguments: [
        { type: 'positional', valueHint: 'city', isRequired: true, description: 'City to report on' },
        { type: 'named', name: '--units', default: 'metric' },
        { type: 'named', name: '--verbose', description: 'optional, without a default: left out' },
      ],
      environmentVariables: [
        { name: 'WEATHER_API_KEY', description: 'API key', isRequired: true, isSecret: true },
        { name: 'WEATHER_REGION', isRequired: true },
        { name: 'WEATHER_CACHE', default: '60' },
        { name: 'WEATHER_DEBUG', description: 'set to 1 for logs' },
      ],
    },
  ],
};

const notes = {
  $schema: SCHEMA,
  name: 'io.github.example/notes',
  description: 'Notes in Python',
  version: '0.5.0',
  packages: [{ registryType: 'pypi', identifier: 'notes-mcp', version: '0.5.0', runtimeHint: 'uvx', transport: { type: 'stdio' }, packageArguments: [{ type: 'positional', value: 'serve' }] }],
};

const database = {
  $schema: SCHEMA,
  name: 'io.github.example/database',
  description: 'A database in a container',
  version: '3.1.0',
  packages: [
    {
      registryType: 'oci',
      identifier: 'docker.io/example/db-mcp',
      version: '3.1.0',
      runtimeHint: 'docker',
      transport: { type: 'stdio' },
      runtimeArguments: [{ type: 'named', name: '--network', value: 'host' }],
      environmentVariables: [{ name: 'DB_PASSWORD', isRequired: true, isSecret: true }],
    },
  ],
};

const hosted = {
  $schema: SCHEMA,
  name: 'com.example/hosted',
  description: 'A hosted server',
  version: '2.0.0',
  remotes: [
    {
      type: 'streamable-http',
      url: 'https://{tenant}.mcp.example.com/{region}/mcp',
      variables: { tenant: { description: 'Your tenant', isRequired: true }, region: { default: 'eu', choices: ['eu', 'us'] } },
      headers: [
        { name: 'Authorization', description: 'Your API token', isRequired: true, isSecret: true, value: `Bearer ${PUBLISHED_SECRET}` },
        { name: 'X-Trace', default: 'off' },
      ],
    },
    { type: 'sse', url: 'https://mcp.example.com/sse' },
  ],
};

const oldWeather = { $schema: SCHEMA, name: 'io.github.example/old-weather', description: 'The first weather server', version: '0.9.0', packages: [{ registryType: 'npm', identifier: 'old-weather-mcp', version: '0.9.0', transport: { type: 'stdio' } }] };
const gone = { $schema: SCHEMA, name: 'io.github.example/gone', description: 'Taken down', version: '1.0.0', packages: [{ registryType: 'npm', identifier: 'gone-mcp', version: '1.0.0' }] };
const broken = { name: 'io.github.example/broken', description: 'Not a server.json', packages: 'npx broken-mcp' };

const DOCUMENTS: Record<string, unknown> = {
  'io.github.example/weather': { server: weather, _meta: official('active') },
  'io.github.example/notes': { server: notes, _meta: official('active') },
  'io.github.example/database': { server: database, _meta: official('active') },
  'com.example/hosted': { server: hosted, _meta: official('active') },
  'io.github.example/old-weather': { server: oldWeather, _meta: official('deprecated', 'Use io.github.example/weather instead') },
  'io.github.example/gone': { server: gone, _meta: official('deleted', 'Removed for malware') },
  'io.github.example/broken': { server: broken },
};

let registry: Server;
let base = '';
const requests: string[] = [];

function listPage(url: URL): unknown {
  const search = url.searchParams.get('search');
  const cursor = url.searchParams.get('cursor');
  if (search === 'forever') {
    // A registry that always has one more page.
    const page = Number(cursor ?? '0');
    return { servers: [{ server: { ...notes, name: `io.github.loop/server-${page}` }, _meta: official('active') }], metadata: { nextCursor: String(page + 1), count: 1 } };
  }
  if (search === 'tenki') {
    return { servers: [{ server: { ...notes, name: 'io.github.example/tenki', description: `天気予報 ${'🌤'.repeat(60)}` }, _meta: official('active') }], metadata: { count: 1 } };
  }
  if (cursor === null) {
    return {
      servers: [DOCUMENTS['io.github.example/weather'], DOCUMENTS['io.github.example/old-weather'], DOCUMENTS['io.github.example/gone'], DOCUMENTS['io.github.example/broken']],
      metadata: { nextCursor: 'page-2', count: 4 },
    };
  }
  return { servers: [{ server: { ...notes, name: 'io.github.other/weather-lite', description: 'Weather, lighter' }, _meta: official('active') }], metadata: { count: 1 } };
}

beforeAll(async () => {
  registry = createServer((request, response) => {
    requests.push(request.url!);
    const url = new URL(request.url!, 'http://127.0.0.1');
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (url.pathname === '/v0.1/servers') return answer(200, listPage(url));
    const match = /^\/v0\.1\/servers\/([^/]+)\/versions\/([^/]+)$/.exec(url.pathname);
    const document = match ? DOCUMENTS[decodeURIComponent(match[1]!)] : undefined;
    if (!document || (match![2] !== 'latest' && match![2] !== (document as { server: { version?: string } }).server.version)) return answer(404, { error: 'Server not found' });
    return answer(200, document);
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => registry.close(() => resolve())));

function installer() {
  const setup = configHome();
  const install = (...args: string[]) => setup.cli('install', '--registry', base, ...args);
  const servers = () => setup.read(setup.userFile).mcpServers as Record<string, Record<string, unknown>>;
  return { ...setup, install, servers };
}

describe('install', () => {
  it('an npm package: npx -y <id>@<version>, secrets and required values as ${VAR}, defaults as ${VAR:-default}, name and version kept', async () => {
    const { install, servers, read, userFile } = installer();
    const run = await install('io.github.example/weather', '--yes');
    expect(run.code).toBe(0);
    expect(servers().weather).toEqual({
      command: 'npx',
      args: ['-y', '@example/weather-mcp@1.4.2', '${CITY}', '--units', '${UNITS:-metric}'],
      env: { WEATHER_API_KEY: '${WEATHER_API_KEY}', WEATHER_REGION: '${WEATHER_REGION}', WEATHER_CACHE: '${WEATHER_CACHE:-60}' },
      description: 'Forecasts and current weather',
      registry: { url: base, name: 'io.github.example/weather', version: '1.4.2' },
    });
    // The rest of the file is as it was.
    expect(Object.keys(read(userFile))).toEqual(['theme', 'mcpServers', 'zzz']);
    expect(run.stdout).toContain('Installed io.github.example/weather 1.4.2 as "weather"');
    expect(run.stdout).toContain('Set CITY, WEATHER_API_KEY, WEATHER_REGION in your environment before it runs.');
    // What was shown: the exact command line, the variables, the mcpb package passed over.
    expect(run.stderr).toContain('npx -y @example/weather-mcp@1.4.2 ${CITY} --units ${UNITS:-metric}');
    expect(run.stderr).toMatch(/WEATHER_API_KEY \(secret, required\): API key/);
    expect(run.stderr).toMatch(/Optional, not set[^\n]*\n\s+WEATHER_DEBUG: set to 1 for logs/);
    expect(run.stderr).toMatch(/Passed over: mcpb package .*not supported/);
    expect(requests).toContain('/v0.1/servers/io.github.example%2Fweather/versions/latest');
  }, 40_000);

  it('pypi → uvx <id>==<version>; oci → docker run -i --rm, the secret passed into the container by name only', async () => {
    const { install, servers } = installer();
    expect((await install('io.github.example/notes', '--yes', '--json')).code).toBe(0);
    expect(servers().notes).toMatchObject({ command: 'uvx', args: ['notes-mcp==0.5.0', 'serve'] });
    expect((await install('io.github.example/database@3.1.0', '--yes', '--json')).code).toBe(0);
    expect(servers().database).toMatchObject({
      command: 'docker',
      args: ['run', '-i', '--rm', '--network', 'host', '-e', 'DB_PASSWORD', 'docker.io/example/db-mcp:3.1.0'],
      env: { DB_PASSWORD: '${DB_PASSWORD}' },
    });
  }, 40_000);

  it('a remote: URL variables and a secret header become references; the secret the document carries is written nowhere', async () => {
    const { install, servers, userFile } = installer();
    const run = await install('com.example/hosted', '--yes', '--name', 'docs');
    expect(run.code).toBe(0);
    expect(servers().docs).toEqual({
      type: 'http',
      url: 'https://${TENANT}.mcp.example.com/${REGION:-eu}/mcp',
      headers: { Authorization: '${AUTHORIZATION}', 'X-Trace': '${X_TRACE:-off}' },
      description: 'A hosted server',
      registry: { url: base, name: 'com.example/hosted', version: '2.0.0' },
    });
    expect(run.stderr).toContain('connects to:  https://${TENANT}.mcp.example.com/${REGION:-eu}/mcp');
    expect(run.stdout + run.stderr + readFileSync(userFile, 'utf8')).not.toContain(PUBLISHED_SECRET);
  }, 40_000);

  it('deprecated: installed, with the warning', async () => {
    const { install, servers } = installer();
    const deprecated = await install('io.github.example/old-weather', '--yes');
    expect(deprecated.code).toBe(0);
    expect(deprecated.stderr).toContain('Warning: the registry marks this server deprecated: Use io.github.example/weather instead.');
    expect(servers()['old-weather']).toMatchObject({ args: ['-y', 'old-weather-mcp@0.9.0'] });
  }, 40_000);

  async function refusals(cases: ReadonlyArray<readonly [string, string]>) {
    const { install, userFile } = installer();
    for (const [name, code] of cases) {
      const run = await install(name, '--yes', '--json');
      expect(run.code, name).toBe(1);
      expect(JSON.parse(run.stdout), name).toMatchObject({ ok: false, code });
    }
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  }

  it('deleted and malformed documents are refused with a code; nothing written', async () => {
    await refusals([
      ['io.github.example/gone', 'DELETED'],
      ['io.github.example/broken', 'REGISTRY_INVALID'],
    ]);
  }, 40_000);

  it('an unknown server or version, or a name that is not a registry name: refused with a code; nothing written', async () => {
    await refusals([
      ['io.github.example/nowhere', 'NOT_FOUND'],
      ['io.github.example/weather@9.9.9', 'NOT_FOUND'],
      ['weather', 'INVALID_ARGUMENTS'],
    ]);
  }, 40_000);

  it('without a terminal and without --yes it shows what it would write and writes nothing; a name already there needs --force', async () => {
    const { install, userFile, cli } = installer();
    const run = await install('io.github.example/weather');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('npx -y @example/weather-mcp@1.4.2 ${CITY} --units ${UNITS:-metric}');
    expect(run.stderr).toContain('Nothing was installed: confirm on a terminal, or add --yes to install without asking.');
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
    const clash = await cli('install', '--registry', base, 'io.github.example/notes', '--name', 'first', '--yes', '--json');
    expect(JSON.parse(clash.stdout)).toMatchObject({ ok: false, code: 'ALREADY_EXISTS' });
  }, 40_000);

  it('into a project folder others may write, which discovery ignores: refused before the consent text and its question; nothing written', async () => {
    const { install, project, projectFile } = installer();
    chmodSync(project, 0o777);
    const run = await install('io.github.example/notes', '--scope', 'project', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'CONFIG_UNREADABLE', error: `${projectFile} is ignored: its folder is writable by other users (servers in it never load), so nothing was changed.` });
    expect(run.stderr).not.toContain('uvx notes-mcp');
    expect(existsSync(projectFile)).toBe(false);
  }, 40_000);

  it('on a terminal: n writes nothing, y installs', async () => {
    const { home, project, userFile, servers } = installer();
    const args = ['install', '--registry', base, 'io.github.example/notes'];
    const declined = await cliInTerminal(args, { cwd: project, env: { HOME: home }, question: 'Install it? [y/N]', answer: 'n' });
    expect(declined).toContain('uvx notes-mcp==0.5.0 serve');
    expect(declined).toContain('You declined; nothing was installed.');
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
    const accepted = await cliInTerminal(args, { cwd: project, env: { HOME: home }, question: 'Install it? [y/N]', answer: 'y' });
    expect(accepted).toContain('Installed io.github.example/notes 0.5.0 as "notes"');
    expect(servers().notes).toMatchObject({ command: 'uvx' });
  }, 60_000);

  it('reads the registry from ~/.ai-zen/settings.json when --registry is not given', async () => {
    const { home, cli, servers } = installer();
    mkdirSync(join(home, '.ai-zen'), { recursive: true });
    writeFileSync(join(home, '.ai-zen', 'settings.json'), JSON.stringify({ mcpRegistry: { url: `${base}/` } }));
    expect((await cli('install', 'io.github.example/notes', '--yes')).code).toBe(0);
    expect(servers().notes).toMatchObject({ registry: { url: base } });
  }, 40_000);

  it('says that a ~/.ai-zen/settings.json which is not a file (a FIFO) cannot be read, at once, instead of waiting on it', async () => {
    const { home, cli } = installer();
    mkdirSync(join(home, '.ai-zen'), { recursive: true });
    const settings = join(home, '.ai-zen', 'settings.json');
    execFileSync('mkfifo', [settings]);
    const run = await cli('install', 'io.github.example/notes', '--yes');
    expect(run.stderr).toBe(`Error: ${settings} is not a regular file; fix it, or pass --registry <url>.\n`);
    expect(run.code).toBe(1);
  }, 40_000);
});

describe('search --registry', () => {
  it('follows the cursor; deleted entries left out, deprecated marked, malformed counted', async () => {
    const { cli } = installer();
    const run = await cli('search', '--registry', '--registry-url', base, 'weather');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`3 servers in ${base} match "weather":`);
    expect(run.stdout).toMatch(/io\.github\.example\/weather\s+1\.4\.2  Forecasts/);
    expect(run.stdout).toMatch(/io\.github\.example\/old-weather\s+0\.9\.0 \(deprecated\)/);
    expect(run.stdout).toContain('io.github.other/weather-lite');
    expect(run.stdout).not.toContain('gone');
    expect(run.stdout).toContain('1 entry the registry sent was not valid server.json and is not shown.');
    expect(requests).toContain('/v0.1/servers?search=weather&version=latest&limit=30&cursor=page-2');
  }, 40_000);

  it('a long description is cut between whole characters: no half of an emoji', async () => {
    const { cli } = installer();
    const run = await cli('search', '--registry', '--registry-url', base, 'tenki');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`天気予報 ${'🌤'.repeat(47)}…`);
    expect(run.stdout).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  }, 40_000);

  it('a registry that pages forever is read 10 pages, and the listing says it is not complete', async () => {
    const { cli } = installer();
    const before = requests.filter((url) => url.includes('search=forever')).length;
    const run = await cli('search', '--registry', '--registry-url', base, '--limit', '1000', '--json', 'forever');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, complete: false });
    expect(JSON.parse(run.stdout).servers).toHaveLength(10);
    expect(requests.filter((url) => url.includes('search=forever')).length - before).toBe(10);
  }, 40_000);

  const REGISTRY_ADDRESS = '--registry-url should be the address of an MCP Registry (API v0.1), without the /v0.1, e.g. https://registry.modelcontextprotocol.io';

  it('a --registry-url on a port fetch refuses (1) says so, and what to give instead, not only "bad port"', async () => {
    const { cli } = installer();
    const run = await cli('search', '--registry', '--registry-url', 'http://127.0.0.1:1', '--json', 'weather');
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ ok: false, code: 'REGISTRY_UNREACHABLE' });
    expect(answer.error).toContain('http://127.0.0.1:1/v0.1/servers?');
    expect(answer.error).toContain('fetch refuses to connect to port 1, one of the "bad ports" the Fetch standard blocks');
    expect(answer.hint).toBe(`run the registry on another port and give that address; ${REGISTRY_ADDRESS}`);
  }, 40_000);

  it('a --registry-url nothing listens at says so, and what it should be', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { cli } = installer();
    const run = await cli('search', '--registry', '--registry-url', `http://127.0.0.1:${port}`, 'weather');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Could not reach the registry at http://127.0.0.1:${port}/v0.1/servers?`);
    expect(run.stderr).toContain(`Hint: nothing is listening at 127.0.0.1:${port}: is the registry running? ${REGISTRY_ADDRESS}`);
  }, 40_000);

  it('a --registry-url that is not a URL is named as --registry-url', async () => {
    const { cli } = installer();
    const run = await cli('search', '--registry', '--registry-url', 'http://[::1', 'weather');
    expect(run.stderr).toBe("Error: --registry-url is not a URL; give the registry's address, e.g. https://registry.modelcontextprotocol.io.\n");
    expect(run.code).toBe(1);
  }, 40_000);
});

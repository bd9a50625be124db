/**
 * Credentials written literally in a server entry — a URL's query and `user:password`, the value
 * after `--token`, `--api-key=…`, `API_KEY=…`, a `--header` — are never shown: not in the live
 * lifecycle view, not in the CLI's log and lifecycle lines, not in its failure text, not where it
 * shows a server's definition (`get`, and the previews of `import`, `install`, `approve`), where of
 * a credential that also reads a `${VAR}` (`--token abc${X}`) the variable stays and only the
 * literal part is hidden, as in a sealed definition. The servers
 * here print their whole command line to stderr, or answer with the URL they were asked for, as
 * real ones do.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, type McpServerConfig } from '../src/index.js';
import { redactSecrets } from '../src/inspection/sanitize.js';
import { redact, REDACTED, secretsOf } from '../src/redact.js';
import { writtenRedaction } from '../src/cli/written-secrets.js';
import { discoverMcpServers } from '../src/config/index.js';
import { literalSecretsOf } from '../src/literal-secrets.js';
import { SEALED, sealServerConfig } from '../src/sealed-config.js';
import { startLifecycleView, type LifecycleView } from '../src/view/lifecycle-view.js';
import { describeServerDefinition } from '../src/cli/approval-prompt.js';
import { runCli } from './support/cli.js';

const CANARY = {
  flag: 'canary-flag-3e81f0',
  flagEquals: 'canary-flag-equals-77a2c4',
  assignment: 'canary-assignment-b5d913',
  header: 'canary-header-0c6e2a',
  argUrl: 'canary-arg-url-9d4b17',
  query: 'canary-query-61f0ad',
  password: 'canary-password-2a7c58',
  // Written before a ${VAR} in a credential: the literal part of `--password canary…${MIXED_SUFFIX}`.
  mixedFlag: 'canary-mixed-flag-c41d07',
  mixedFlagEquals: 'canary-mixed-equals-8e5b93',
};
const CANARIES = Object.values(CANARY);

/** Writes its command line to stderr and exits: the connect fails with that line in the stderr tail. */
const ECHO_ARGUMENTS = "process.stderr.write(process.argv.slice(1).join(' ') + '\\n'); process.exit(1)";

/**
 * A web server that names the address it was asked for: `/mcp` answers `initialize` with a
 * JSON-RPC error quoting it (an "invalid key in …" answer), any other path is a 404 quoting it.
 */
async function startEchoingServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (!request.url?.startsWith('/mcp?') || request.method !== 'POST') {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end(`Cannot ${request.method} ${request.url}`);
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { id } = JSON.parse(body) as { id?: unknown };
      const error = { code: -32602, message: `no such key in ${request.url}` };
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error }));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let folder: string;
let web: { url: string; server: Server };
let servers: Record<string, McpServerConfig>;
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-literal-secrets-'));
  web = await startEchoingServer();
  servers = {
    arguments: {
      command: process.execPath,
      args: [
        '-e',
        ECHO_ARGUMENTS,
        '--',
        '--token',
        CANARY.flag,
        `--api-key=${CANARY.flagEquals}`,
        `API_KEY=${CANARY.assignment}`,
        '--header',
        `Authorization: Bearer ${CANARY.header}`,
        `https://example.test/feed?key=${CANARY.argUrl}`,
        '--password',
        `${CANARY.mixedFlag}\${MIXED_SUFFIX}`,
        `--client-secret=${CANARY.mixedFlagEquals}\${MIXED_SUFFIX}`,
      ],
    },
    query: { url: `${web.url}/mcp?api_key=${CANARY.query}` },
    'not-found': { url: `${web.url}/nothing?api_key=${CANARY.query}` },
    userinfo: { url: `${web.url.replace('http://', `http://someone:${CANARY.password}@`)}/mcp` },
  };
});
afterEach(async () => {
  await new Promise((closed) => web.server.close(closed));
  rmSync(folder, { recursive: true, force: true });
});

function expectNoCanary(text: string): void {
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

describe('the rule', () => {
  it('redacts the query and user:password of a URL, values after secret flags, env-style assignments and header arguments', () => {
    const shown = (config: McpServerConfig, text: string) => redact(text, secretsOf(config));
    const query = 'https://api.example.test/mcp?api_key=abc123def&region=eu-west-1';
    expect(shown({ url: query }, `GET ${query} failed`)).toBe(`GET https://api.example.test/mcp?${REDACTED} failed`);
    expect(shown({ url: query }, 'the server echoed abc123def')).toBe(`the server echoed ${REDACTED}`);
    const userinfo = 'https://me:hunter2-long@example.test/mcp';
    expect(shown({ url: userinfo }, userinfo)).toBe(`https://${REDACTED}@example.test/mcp`);

    const args = ['server.js', '--token', 'tok-123456', '--client-secret=sec-123456', 'GITHUB_TOKEN=ghp-123456', '-H', 'X-Key: key-123456', '--verbose'];
    expect(shown({ command: 'node', args }, args.join(' '))).toBe(
      `server.js --token ${REDACTED} --client-secret=${REDACTED} GITHUB_TOKEN=${REDACTED} -H X-Key: ${REDACTED} --verbose`,
    );
    // A flag that names no secret keeps its value, and a secret flag followed by another flag takes nothing from it.
    const plain = ['--root', '/srv/projects', '--auth', '--verbose'];
    expect(shown({ command: 'node', args: plain }, plain.join(' '))).toBe(plain.join(' '));
  });

  it('finds the credentials of a URL written with what the URL parser trims or drops (leading spaces and controls, tabs and newlines)', () => {
    for (const written of [' \x01https://api.example.test/mcp?key=padded-secret-1', 'ht\ttps://api.example.test/mcp?key=padded-secret-1', 'HTTPS://api.example.test/mcp?key=padded-secret-1']) {
      expect(secretsOf({ url: written })).toContain('padded-secret-1');
      expect(secretsOf({ command: 'node', args: ['server.js', written] })).toContain('padded-secret-1');
    }
  });
  it('takes a fragment of parameters as it takes a query (`#access_token=…`), and leaves a fragment that names a place', () => {
    const url = 'https://h.example/mcp#access_token=abcdef123456&token_type=bearer';
    expect(literalSecretsOf({ url })).toEqual(expect.arrayContaining(['access_token=abcdef123456&token_type=bearer', 'abcdef123456']));
    const args = ['server.js', 'https://h.example/feed#sig=fragment-sig-1'];
    expect(redact(args.join(' '), secretsOf({ command: 'node', args }))).toBe(`server.js https://h.example/feed#${REDACTED}`);
    const sealed = sealServerConfig({ url });
    expect(JSON.stringify(sealed)).not.toContain('abcdef123456');
    expect(sealed).toMatchObject({ url: `https://h.example/mcp#${SEALED}` });
    expect(literalSecretsOf({ url: 'https://h.example/docs#getting-started' })).toEqual([]);
  });

  it('in a definition as written, leaves a ${VAR} as it is (it holds no value) and redacts a default written in one', () => {
    const args = ['--token', '${TOKEN}', '--api-key', '${KEY:-default-key-1}', 'https://example.test/mcp?key=${KEY}&region=eu-west-1'];
    expect(writtenRedaction({ command: 'node', args })(args.join(' '))).toBe(
      `--token \${TOKEN} --api-key \${KEY:-${REDACTED}} https://example.test/mcp?key=\${KEY}&region=${REDACTED}`,
    );
  });

  it('in a definition as written, redacts the literal part of a credential that also reads a ${VAR}, and keeps the ${VAR}', () => {
    const args = [
      '--token',
      'abc${X}',
      '--api-key=sk-${SUFFIX}',
      'API_KEY=key-${A}-${B}',
      '--auth',
      '${USER}:${PASSWORD}',
      '--header',
      'Authorization: Bearer tok-${T}',
      'https://me:pw-${P}@example.test/mcp?key=sk-${KEY}&region=${REGION}',
    ];
    expect(writtenRedaction({ command: 'node', args })(args.join(' '))).toBe(
      [
        `--token ${REDACTED}\${X}`,
        `--api-key=${REDACTED}\${SUFFIX}`,
        `API_KEY=${REDACTED}\${A}-\${B}`,
        // Only references and the punctuation between them: nothing written there is secret.
        '--auth ${USER}:${PASSWORD}',
        `--header Authorization: Bearer ${REDACTED}\${T}`,
        `https://me:${REDACTED}\${P}@example.test/mcp?key=${REDACTED}\${KEY}&region=\${REGION}`,
      ].join(' '),
    );
  });

  it('in a sealed definition (snapshots, inspectors), seals the literal part of such a credential and keeps the ${VAR}', async () => {
    const file = join(folder, 'sealed.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { mixed: { command: 'node', args: ['--token', `${CANARY.mixedFlag}\${MIXED_SUFFIX}`, '--name=${NAME}'] } } }));
    const { servers: discovered } = await discoverMcpServers({ configPaths: [file], env: { MIXED_SUFFIX: 'suffix-from-the-environment', NAME: 'n' } });
    const sealed = JSON.stringify(sealServerConfig(discovered.mixed!.config));
    expect(sealed).toContain(`"--token","${SEALED}\${MIXED_SUFFIX}","--name=\${NAME}"`);
    expect(sealed).not.toContain(CANARY.mixedFlag);
    expect(sealed).not.toContain('suffix-from-the-environment');
  });
});

describe('inspection', () => {
  it('gets server configs with the literal credentials of their args redacted', () => {
    const seen = JSON.stringify(redactSecrets({ servers }));
    expect(seen).toContain(`--token","${REDACTED}"`);
    expectNoCanary(seen);
  });
});

describe('the live lifecycle view', () => {
  let view: LifecycleView | undefined;
  afterEach(async () => {
    await view?.stop();
    view = undefined;
  });

  it('shows the failed connects with their errors and stderr tails, and no literal secret', async () => {
    const logged: string[] = [];
    const log = (line: string) => logged.push(line);
    const manager = new McpConnectionManager({ logger: { debug: log, info: log, warn: log, error: log } });
    try {
      view = await startLifecycleView(manager);
      manager.configure(servers);
      for (const name of Object.keys(servers)) {
        await expect(manager.connect(name, servers[name]!, { autoReconnect: false, maxRetries: 0 })).rejects.toThrow();
      }
      const events = await fetch(view.url.replace('/?', '/events?'));
      const reader = events.body!.getReader();
      let stream = '';
      while (!stream.includes('"type":"rows"')) stream += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      const rows = JSON.parse(/data: (.*)\n/.exec(stream)![1]!).rows as Array<{ name: string; lastError?: { message: string; stderrTail?: string } }>;
      const row = (name: string) => rows.find((candidate) => candidate.name === name)!;
      expect(row('arguments').lastError?.stderrTail).toContain(`--token ${REDACTED}`);
      expect(row('query').lastError?.message).toContain(`/mcp?${REDACTED}`);
      // fetch refuses user:password, so the entry is refused before any request, naming the field, not the URL.
      expect(row('userinfo').lastError?.message).toContain('the "url" carries a user name or password');
      expectNoCanary(stream);
      expect(logged.join('\n')).toContain(`--token ${REDACTED}`);
      expectNoCanary(logged.join('\n'));
    } finally {
      await manager.dispose();
    }
  });
});

describe('the CLI', () => {
  it('writes no literal secret in --verbose log and lifecycle lines, nor in the failure and its hint', async () => {
    const config = join(folder, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: servers }));
    for (const name of Object.keys(servers)) {
      const run = await runCli(['--config', config, '--verbose', 'load', name], { cwd: folder, timeoutMs: 60_000 });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(new RegExp(`${name}: connecting → error`));
      // A URL with user:password is refused before any request, and its error names the field, not the URL.
      expect(output).toContain(name === 'userinfo' ? 'the "url" carries a user name or password' : REDACTED);
      expectNoCanary(output);
    }
  }, 180_000);

  it('shows a definition (get, get --json, the preview import, install and approve print) with the command and URL readable and no literal secret', async () => {
    const config = join(folder, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: servers }));
    const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: folder, env: { HOME: folder }, timeoutMs: 30_000 });
    const text = await cli('get', 'arguments');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`runs:.* -- --token \\${REDACTED} --api-key=\\${REDACTED} API_KEY=\\${REDACTED} --header 'Authorization: \\${REDACTED}' 'https://example.test/feed\\?\\${REDACTED}'`));
    expect(text.stdout).toContain(`--password ${REDACTED}\${MIXED_SUFFIX} --client-secret=${REDACTED}\${MIXED_SUFFIX}`);
    expect((await cli('get', 'userinfo')).stdout).toMatch(new RegExp(`connects to:\\s+http://\\${REDACTED}@127\\.0\\.0\\.1:\\d+/mcp`));
    const outputs = [text];
    for (const name of Object.keys(servers)) outputs.push(await cli('get', name), await cli('get', name, '--json'));
    const json = JSON.parse(outputs.at(-1)!.stdout) as { name: string; definitions: Array<{ definition: McpServerConfig }> };
    expect(json.name).toBe('userinfo');
    expect(json.definitions[0]!.definition.url).toBe(`${web.url.replace('http://', `http://${REDACTED}@`)}/mcp`);
    // import prints what it would add before it asks; without a terminal it then stops.
    const preview = await runCli(['import', '--from', config], { cwd: folder, env: { HOME: folder }, timeoutMs: 30_000 });
    expect(preview.stderr).toContain('These 4 servers would be added');
    expect(preview.stderr).toContain(`--token ${REDACTED}`);
    outputs.push(preview);
    for (const run of outputs) expectNoCanary(`${run.stdout}${run.stderr}`);
    // install's and approve's consent show the same definition.
    for (const [name, entry] of Object.entries(servers)) {
      const transport = entry.url ? 'http' : 'stdio';
      expectNoCanary(describeServerDefinition({ name, config: entry, written: entry, transport, scope: 'project', source: config, disabled: false }));
    }
  }, 120_000);
});

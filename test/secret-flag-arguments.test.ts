/**
 * A credential written after a plain `--key`, `--pass`, `--secret`, `--password` or `--auth` (or
 * as `--flag=value`, or a flag whose last word is one: `--license-key`, `--dbPass`) is a secret
 * like the one after `--api-key`: it never reaches `servers --json`, `doctor`, a failure's text
 * or an inspector. The server here prints its whole command line to stderr and exits, as a real
 * one that refuses its arguments does, so the failure carries every argument in its stderr tail.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { McpConnectionManager, silentLogger, type McpServerConfig } from '../src/index.js';
import { redactSecrets } from '../src/inspection/sanitize.js';
import { redact, REDACTED, secretsOf } from '../src/redact.js';
import { runCli } from './support/cli.js';

const CANARY = {
  key: 'canary-key-5f20e1',
  keyEquals: 'canary-key-equals-a913c0',
  pass: 'canary-pass-7b41d2',
  passEquals: 'canary-pass-equals-2e86f4',
  secret: 'canary-secret-c0d417',
  password: 'canary-password-91ab3e',
  auth: 'canary-auth-4d7e05',
  lastWord: 'canary-last-word-6a2b18',
  camelCase: 'canary-camel-case-e37f90',
};
const CANARIES = Object.values(CANARY);

const ECHO_ARGUMENTS = "process.stderr.write(process.argv.slice(1).join(' ') + '\\n'); process.exit(1)";

const secretArguments = [
  '--key',
  CANARY.key,
  `--key=${CANARY.keyEquals}`,
  '--pass',
  CANARY.pass,
  `--pass=${CANARY.passEquals}`,
  '--secret',
  CANARY.secret,
  `--password=${CANARY.password}`,
  '--auth',
  CANARY.auth,
  '--license-key',
  CANARY.lastWord,
  `--dbPass=${CANARY.camelCase}`,
];
const server: McpServerConfig = { command: process.execPath, args: ['-e', ECHO_ARGUMENTS, '--', ...secretArguments] };

function expectNoCanary(text: string): void {
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-secret-flags-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('the rule', () => {
  it('takes the value of --key, --pass, --secret, --password, --auth and of flags whose last word is key or pass as a secret', () => {
    const secrets = secretsOf(server);
    for (const canary of CANARIES) expect(secrets).toContain(canary);
    expect(redact(secretArguments.join(' '), secrets)).toBe(
      `--key ${REDACTED} --key=${REDACTED} --pass ${REDACTED} --pass=${REDACTED} --secret ${REDACTED} --password=${REDACTED} ` +
        `--auth ${REDACTED} --license-key ${REDACTED} --dbPass=${REDACTED}`,
    );
  });

  it('leaves the values of flags that only contain those letters (a key file, a bypass, a keyboard layout)', () => {
    const plain = ['--key-file', '/etc/ssl/server.key', '--bypass', 'proxy-cache', '--keyboard', 'dvorak-layout', '--monkey', 'capuchin-patch'];
    expect(redact(plain.join(' '), secretsOf({ command: 'node', args: plain }))).toBe(plain.join(' '));
  });
});

describe('where a server is shown', () => {
  it('an inspector never sees them, in the configs or in the failed connect', async () => {
    expectNoCanary(JSON.stringify(redactSecrets({ servers: { flags: server } })));
    const seen: string[] = [];
    const record = (event: InspectionEvent) => {
      const parts: unknown[] = [];
      if ('snapshot' in event) parts.push(event.snapshot);
      if ('event' in event) parts.push(event.event);
      seen.push(JSON.stringify(parts, (_key, value: unknown) => (typeof value === 'object' && value !== null && 'sessionId' in value ? '[ref]' : value)));
    };
    const manager = new McpConnectionManager({ logger: silentLogger, inspect: record });
    try {
      manager.configure({ flags: server });
      const failure: unknown = await manager.connect('flags', server, { autoReconnect: false, maxRetries: 0 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      // The failure quotes the command line: the flags are there, their values are not.
      const failureText = JSON.stringify({ ...(failure as Error), message: (failure as Error).message });
      expect(failureText).toContain(`--key ${REDACTED}`);
      expectNoCanary(failureText);
      expect(seen.join('\n')).toContain(`--key ${REDACTED}`);
      expectNoCanary(seen.join('\n'));
    } finally {
      await manager.dispose();
    }
  });

  it('servers --json, servers --check --json, doctor, doctor --json, get --json and a failed load print none of them', async () => {
    const config = join(home, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { flags: server } }));
    const cli = (...args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    const runs = [
      await cli('servers', '--json'),
      await cli('servers', '--check', '--json'),
      await cli('doctor'),
      await cli('doctor', '--json'),
      await cli('get', 'flags', '--json'),
      await cli('--verbose', 'load', 'flags'),
    ];
    const output = runs.map((run) => `${run.stdout}${run.stderr}`).join('\n');
    // The failures did carry the command line, with the values hidden.
    expect(output).toContain(`--key ${REDACTED}`);
    expectNoCanary(output);
  }, 120_000);
});

/**
 * The --gateway file: the issue's shape loads; every mistake is named by identity (or group) and
 * field, and no token value ever appears in a problem, a printed config or a log; bearer tokens
 * are matched by digest; the file is watched like the MCP config.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findTokenOwner } from '../src/gateway/bearer-token.js';
import { loadGatewayFile, parseGatewayConfig, type GatewayConfig } from '../src/gateway/gateway-file.js';
import { watchGatewayFile, type GatewayFileWatcher } from '../src/gateway/watch-gateway-file.js';
import type { Logger } from '../src/logger.js';
import { failingWatches, TOO_MANY_WATCHES } from './support/watch-errors.js';

const ALICE_TOKEN = 'alice-secret-token-7f3a';
const BOB_TOKEN = 'bob-secret-token-c1d9';
const sha256 = (token: string) => `sha256:${createHash('sha256').update(token).digest('hex')}`;

/** The issue's example, as written. */
const issueShape = {
  identities: {
    alice: { token: sha256(ALICE_TOKEN), allow: ['*'] },
    bob: { token: sha256(BOB_TOKEN), deny: ['secret*'], denyTools: ['fs/write_*'], approve: 'destructive', callsPerMinute: 120 },
  },
  oauth: { issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp', identityClaim: 'sub', groupsClaim: 'groups' },
  groups: { admins: { allow: ['*'] } },
};

function loaded(value: unknown): GatewayConfig {
  const result = parseGatewayConfig(value);
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.config;
}

function problemsOf(value: unknown): string[] {
  const result = parseGatewayConfig(value);
  return result.ok ? [] : result.problems;
}

describe('the gateway file', () => {
  it("loads the issue's shape exactly", () => {
    const config = loaded(issueShape);
    expect([...config.identities.keys()]).toEqual(['alice', 'bob']);
    expect(config.identities.get('bob')).toMatchObject({ deny: ['secret*'], denyTools: ['fs/write_*'], approve: 'destructive', callsPerMinute: 120 });
    expect(config.oauth).toEqual({
      issuer: 'https://auth.example.com',
      audience: 'https://mcp.example.com/mcp',
      identityClaim: 'sub',
      groupsClaim: 'groups',
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    });
    expect(config.groups.get('admins')).toEqual({ allow: ['*'] });
  });

  it('names the identity and the field of each mistake', () => {
    const problems = problemsOf({
      identities: {
        carol: { token: sha256('x'), denytools: ['fs/*'] },
        dave: { token: sha256('y'), approve: 'sometimes', callsPerMinute: 0, listenStreams: 2.5, slowReaderSeconds: 0, requestBytesInFlight: '64 MiB', allow: 'fs' },
        erin: { token: sha256('z'), groups: ['ops'] },
      },
    });
    expect(problems).toEqual([
      expect.stringMatching(/^identity "carol": unknown field "denytools"/),
      'identity "dave": "allow" must be a list of at most 1000 non-empty strings',
      'identity "dave": "approve" must be one of never, destructive, always',
      'identity "dave": "callsPerMinute" must be a whole number from 1 to 1000000',
      'identity "dave": "listenStreams" must be a whole number from 1 to 10000',
      'identity "dave": "slowReaderSeconds" must be a whole number from 1 to 3600',
      'identity "dave": "requestBytesInFlight" must be a whole number from 1 to 4294967296',
      'identity "erin": "groups" names "ops", which is not in "groups"',
    ]);
  });

  it('refuses a token that is not a sha256 digest, without quoting it', () => {
    const problems = problemsOf({ identities: { alice: { token: ALICE_TOKEN } } });
    expect(problems).toEqual([expect.stringMatching(/^identity "alice": "token" must be "sha256:" and the 64 hex digits/)]);
    expect(problems.join('\n')).not.toContain(ALICE_TOKEN);
  });

  it('refuses two identities with the same token', () => {
    expect(problemsOf({ identities: { a: { token: sha256('same') }, b: { token: sha256('same') } } })).toEqual([
      'identity "b": "token" is the same as identity "a"\'s; each identity needs its own',
    ]);
  });

  it('refuses an oauth section without https, or with a symmetric or unsigned algorithm', () => {
    expect(problemsOf({ oauth: { issuer: 'http://auth.example.com', audience: 'https://mcp.example.com/mcp', algorithms: ['HS256', 'none'] } })).toEqual([
      '"oauth": "issuer" must use https (plain http only on 127.0.0.1 or localhost)',
      '"oauth": "algorithms" may name only RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519 (asymmetric signatures)',
    ]);
  });

  it('refuses a file that names no one', () => {
    expect(problemsOf({ groups: {} })).toEqual(['names no one: add "identities" with a token each, or "oauth"']);
  });

  it('never prints a digest when the config is printed or serialized', () => {
    const config = loaded(issueShape);
    const digestHex = sha256(ALICE_TOKEN).slice('sha256:'.length);
    expect(inspect(config, { depth: 10 })).not.toContain(digestHex);
    expect(JSON.stringify(Object.fromEntries(config.identities))).not.toContain(digestHex);
  });

  it('finds the owner of a bearer token by its digest, and no one for another token', () => {
    const config = loaded(issueShape);
    const owners = [...config.identities].map(([name, identity]): [string, typeof identity.token] => [name, identity.token]);
    expect(findTokenOwner(BOB_TOKEN, owners)).toBe('bob');
    expect(findTokenOwner(ALICE_TOKEN, owners)).toBe('alice');
    expect(findTokenOwner(`${ALICE_TOKEN}x`, owners)).toBeUndefined();
    expect(findTokenOwner(sha256(ALICE_TOKEN), owners)).toBeUndefined();
  });

  it('says where a file that is not JSON breaks, without quoting it', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-file-'));
    const file = path.join(folder, 'gateway.json');
    await fs.writeFile(file, `{ "identities": { "alice": { "token": "${ALICE_TOKEN}" }, } }`);
    const result = await loadGatewayFile(file);
    expect(result).toEqual({ ok: false, problems: [expect.stringMatching(/^gateway file .*gateway\.json: line 1, column \d+: /)] });
    expect(JSON.stringify(result)).not.toContain(ALICE_TOKEN);
    await fs.rm(folder, { recursive: true, force: true });
  });
});

describe('watching the gateway file', () => {
  const WAIT = { timeout: 10_000, interval: 25 };
  let folder: string;
  let file: string;
  let watcher: GatewayFileWatcher | undefined;

  beforeEach(async () => {
    folder = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-watch-')));
    file = path.join(folder, 'gateway.json');
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('refuses to start on a file that does not load, with its problems', async () => {
    await fs.writeFile(file, JSON.stringify({ identities: { alice: { token: ALICE_TOKEN } } }));
    const started = watchGatewayFile(file);
    await expect(started).rejects.toThrow(/identity "alice": "token" must be "sha256:"/);
    await expect(started).rejects.not.toThrow(ALICE_TOKEN);
  });

  it('takes an edit, and keeps the rules in force while the file is broken', async () => {
    await fs.writeFile(file, JSON.stringify(issueShape));
    const warnings: unknown[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message, details) => warnings.push({ message, details }) };
    const changes: GatewayConfig[] = [];
    watcher = await watchGatewayFile(file, { logger, debounceMs: 10, onChange: (config) => changes.push(config) });
    expect(watcher.current().identities.has('bob')).toBe(true);

    await fs.writeFile(file, JSON.stringify({ identities: { alice: issueShape.identities.alice } }));
    await vi.waitFor(() => expect(watcher?.current().identities.has('bob')).toBe(false), WAIT);
    expect(changes).toHaveLength(1);

    await fs.writeFile(file, JSON.stringify({ identities: { alice: { token: ALICE_TOKEN } } }));
    await vi.waitFor(() => expect(warnings).toHaveLength(1), WAIT);
    expect(watcher.current().identities.get('alice')?.allow).toEqual(['*']);
    // The message is what serve's stderr shows, so it names what to fix.
    expect((warnings[0] as { message: string }).message).toMatch(/kept the gateway rules in force until .*gateway\.json loads again: .*identity "alice": "token" must be "sha256:/);
    expect(JSON.stringify(warnings)).not.toContain(ALICE_TOKEN);
    expect(changes).toHaveLength(1);
  });

  it("says in the warning's message why its watcher failed, and that edits are no longer followed", async () => {
    await fs.writeFile(file, JSON.stringify(issueShape));
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
    const watches = failingWatches();
    try {
      watcher = await watchGatewayFile(file, { logger, debounceMs: 10 });
      watches.fail(TOO_MANY_WATCHES);
    } finally {
      watches.restore();
    }
    // The message is all serve's stderr shows.
    expect(warnings).toEqual([`gateway file watcher failed (${TOO_MANY_WATCHES.message}): edits to ${file} are no longer followed; the rules in force stay until serve restarts`]);
  });

  it('follows a save that renames a new file over the old one', async () => {
    await fs.writeFile(file, JSON.stringify(issueShape));
    watcher = await watchGatewayFile(file, { debounceMs: 10 });
    const temporary = path.join(folder, '.gateway.json.swp');
    await fs.writeFile(temporary, JSON.stringify({ identities: { carol: { token: sha256('carol') } } }));
    await fs.rename(temporary, file);
    await vi.waitFor(() => expect([...(watcher?.current().identities.keys() ?? [])]).toEqual(['carol']), WAIT);
  });

  it('reads nothing when another file of its folder changes, however often (an audit log kept beside it)', async () => {
    await fs.writeFile(file, JSON.stringify(issueShape));
    const changes: GatewayConfig[] = [];
    watcher = await watchGatewayFile(file, { debounceMs: 10, onChange: (config) => changes.push(config) });
    const readFolder = vi.spyOn(fs, 'readdir');
    const readFile = vi.spyOn(fs, 'readFile');
    // Modules that imported node:fs/promises by name see the spies too.
    syncBuiltinESMExports();
    try {
      const neighbour = path.join(folder, 'audit.log');
      for (let line = 0; line < 200; line++) {
        await fs.appendFile(neighbour, `{"line":${line}}\n`);
        if (line % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      // An edit of the file itself after the burst is still taken: the neighbour's events were seen, and passed over.
      await fs.writeFile(file, JSON.stringify({ identities: { alice: issueShape.identities.alice } }));
      await vi.waitFor(() => expect(changes).toHaveLength(1), WAIT);
      expect(readFolder).not.toHaveBeenCalled();
      expect(readFile.mock.calls.map(([read]) => read)).toEqual([file]);
    } finally {
      vi.restoreAllMocks();
      syncBuiltinESMExports();
    }
  });
});

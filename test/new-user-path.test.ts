/**
 * The README's first lines, as a new user runs them: a fresh copy of the repository (git archive
 * of HEAD), an empty HOME, `npm ci --offline` (from the npm cache: the packages are the lock
 * file's), `npm run build`, `npm link` into a prefix of its own, then `mcp-statechart add` a
 * reference server, `doctor`, `search` and `call`, each one green. Not part of `npm test` (a clean install
 * and build take minutes on 2 cores): `npm run test:new-user`, which .ci/run also runs.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));
/** The whole path, install to call: every step gets what is left of it. */
const BUDGET_MS = 240_000;

const root = mkdtempSync(join(os.tmpdir(), 'mcp-new-user-'));
/** Removing a copy with its node_modules takes a while on a busy machine. */
const CLEANUP_MS = 120_000;
afterAll(() => rm(root, { recursive: true, force: true }), CLEANUP_MS);

describe('the new-user path of the README', () => {
  it('fresh copy, empty HOME: npm ci, build, npm link, add, doctor, search, call, all green', () => {
    const deadline = Date.now() + BUDGET_MS;
    const [clone, home, prefix, logs] = ['clone', 'home', 'prefix', 'npm-logs'].map((folder) => join(root, folder)) as [string, string, string, string];
    for (const folder of [clone, home, prefix]) mkdirSync(folder);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home,
      PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      // The packages come from the cache of whoever runs the tests (npm sets npm_config_cache for
      // `npm run`); the empty HOME has none. Never the network: a package missing from the cache fails the step.
      npm_config_cache: process.env.npm_config_cache ?? join(os.userInfo().homedir, '.npm'),
      npm_config_prefix: prefix,
      npm_config_logs_dir: logs,
      npm_config_update_notifier: 'false',
      npm_config_offline: 'true',
    };
    const step = (command: string, args: string[], stepEnv: NodeJS.ProcessEnv = env): SpawnSyncReturns<string> => {
      const result = spawnSync(command, args, { cwd: clone, env: stepEnv, encoding: 'utf8', timeout: Math.max(1, deadline - Date.now()), maxBuffer: 16 * 1024 * 1024 });
      expect(result.status, `${command} ${args.join(' ')} (${result.signal ?? 'exited'}):\n${result.stdout}\n${result.stderr}`).toBe(0);
      return result;
    };

    const archive = spawnSync('git', ['-C', REPOSITORY, 'archive', '--format=tar', 'HEAD'], { maxBuffer: 256 * 1024 * 1024 });
    expect(archive.status).toBe(0);
    expect(spawnSync('tar', ['-x', '-C', clone], { input: archive.stdout }).status).toBe(0);
    expect(readdirSync(clone)).toContain('package.json');

    const install = step('npm', ['ci', '--offline', '--no-audit', '--no-fund']);
    // `npm install` prints no avoidable warning (README's first hour).
    expect(install.stderr).not.toMatch(/npm warn/i);
    step('npm', ['run', 'build']);
    step('npm', ['link']);
    expect(readdirSync(join(prefix, 'bin'))).toEqual(['mcp-statechart']);

    // From here on, as the README's lines are typed; npx finds the reference server in the copy's node_modules.
    const memoryFile = join(root, 'memory.jsonl');
    const added = step('mcp-statechart', ['add', 'memory', '-e', `MEMORY_FILE_PATH=${memoryFile}`, '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(added.stdout).toContain(`Added stdio server "memory" in ${join(home, '.ai-zen', 'mcp.json')} (user scope).`);
    expect(JSON.parse(readFileSync(join(home, '.ai-zen', 'mcp.json'), 'utf8'))).toEqual({
      mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: memoryFile } } },
    });

    const doctor = step('mcp-statechart', ['doctor']);
    expect(doctor.stdout).toMatch(/^memory\s+stdio\s+connected\s+\d{4}-\d{2}-\d{2}\s+\d+ ms\s+\d+\s+\d+\s+\d+$/m);
    expect(doctor.stdout).toMatch(/^The 1 checked server works\.$/m);

    // Search ranks with the thesaurus the package ships (data/thesaurus.txt): it must load from the built files.
    const search = step('mcp-statechart', ['search', 'read', 'the', 'graph']);
    expect(search.stdout).toMatch(/^ {2}memory\/read_graph\s/m);

    const call = step('mcp-statechart', ['call', 'memory', 'read_graph']);
    expect(JSON.parse(call.stdout)).toEqual({ entities: [], relations: [] });
  }, BUDGET_MS + 10_000);
});

/**
 * When the SDK refuses a server's answer, its message lists the schema's issues as JSON over many
 * lines. The command line says them on its one line of reason (each field and what is wrong with
 * it), so a server's author learns what to fix rather than reading "…tools/list: [".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const HAND_WRITTEN = fileURLToPath(new URL('./fixtures/hand-written-modern.mjs', import.meta.url));

let home: string;
let config: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-invalid-answer-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { mine: { command: process.execPath, args: [HAND_WRITTEN] } } }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const REASON = 'Invalid result for tools/list: ttlMs: Invalid input: expected number, received undefined; cacheScope: Invalid option: expected one of "public"|"private"';

it('names each field of a refused tools/list and what is wrong with it', async () => {
  const run = await runCli(['--config', config, 'load', 'mine'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`Error: could not connect to "mine": ${REASON}\n`);
}, 40_000);

it('says the same in --json', async () => {
  const run = await runCli(['--config', config, 'load', 'mine', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
  const report = JSON.parse(run.stdout) as { ok: boolean; error: { message: string } };
  expect(report.ok).toBe(false);
  expect(report.error.message).toBe(`could not connect to "mine": ${REASON}`);
}, 40_000);

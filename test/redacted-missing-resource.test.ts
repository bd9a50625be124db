/**
 * `read` of a URI the server does not have says so, and where to see its resources, also when the
 * URI holds a value of the server's entry: the server's refusal is then a redacted copy (a plain
 * Error), which the instanceof checks no longer recognised, so the failure came out in the
 * server's words. The refusal is read by its code and data. A real stdio server (the examples'
 * notes server).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const NOTES_SERVER = fileURLToPath(new URL('../examples/servers/notes-server.mjs', import.meta.url));
const SECRET = 'private-note-key-42';

let home: string;
let config: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-redacted-resource-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [NOTES_SERVER], env: { NOTE_KEY: SECRET } } } }));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const cli = (args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('read of a missing resource whose URI holds a secret', () => {
  it('says the server has no such resource (its URI with the secret redacted) and the resources it lists', async () => {
    const run = await cli(['read', 'notes', `notes://${SECRET}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: server "notes" has no resource "notes://[redacted]"\nHint: it lists notes://all; \`mcp-statechart load notes\` shows them with their names\n`);
  });
});

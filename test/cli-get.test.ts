/** `get` shows a definition as written, never the values of env or headers, and whether the server is in use. */
import { describe, expect, it } from 'vitest';
import { configHome } from './support/config-command-home.js';
import { everythingStdio } from './support/everything.js';

describe('get', () => {
  it('shows the definition with env and header names but not their values', async () => {
    const { cli, userFile } = configHome();
    await cli('add-json', 'svc', '{"command":"svc","args":["--port","0"],"env":{"API_KEY":"literal-secret-1"}}');
    await cli('add-json', 'web', '{"url":"https://web.example/mcp","headers":{"Authorization":"Bearer literal-secret-2"}}');
    const text = await cli('get', 'svc');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Server "svc" from ${userFile} (stdio):`);
    expect(text.stdout).toMatch(/runs:\s+svc --port 0/);
    expect(text.stdout).toMatch(/env:\s+API_KEY \(values not shown\)/);
    expect(text.stdout).toMatch(/status:\s+enabled/);
    const json = await cli('get', 'web', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      name: 'web',
      definitions: [{ scope: 'user', source: userFile, definition: { url: 'https://web.example/mcp', headers: { Authorization: '(hidden)' } } }],
    });
    for (const run of [text, json]) expect(run.stdout + run.stderr).not.toMatch(/literal-secret/);
  }, 60_000);

  it('says a project server waits for approval, and how to give it', async () => {
    const { cli, projectFile } = configHome();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(projectFile, JSON.stringify({ mcpServers: { cloned: { command: 'node', args: ['x.js'] } } }));
    const run = await cli('--project-servers', 'ask', 'get', 'cloned');
    expect(run.stdout).toMatch(/status:\s+pending approval: run `mcp-statechart approve cloned` on a terminal/);
  }, 40_000);

  it('with --check, connects it once and shows its health: connected with its tools, or failed with the reason and a hint', async () => {
    const { cli } = configHome();
    await cli('add-json', 'everything', JSON.stringify(everythingStdio()));
    await cli('add-json', 'missing', '{"command":"no-such-mcp-server-binary"}');
    const json = await cli('get', 'everything', '--check', '--json');
    expect(json.code).toBe(0);
    const [definition] = JSON.parse(json.stdout).definitions;
    expect(definition.health.state).toBe('connected');
    expect(definition.health.tools).toBeGreaterThan(0);
    const text = await cli('get', 'missing', '--check', '--timeout', '20000');
    expect(text.stdout).toMatch(/status:\s+enabled\n\s+health:\s+failed: could not connect to "missing": command "no-such-mcp-server-binary" was not found.*\n\s+hint:\s+check that `no-such-mcp-server-binary` is installed/);
    // Without --check nothing is started.
    expect((await cli('get', 'missing')).stdout).not.toContain('health:');
  }, 90_000);

  it('an unknown name fails with a code and says what to run', async () => {
    const { cli } = configHome();
    const run = await cli('get', 'nope', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'UNKNOWN_SERVER' });
    expect(JSON.parse(run.stdout).hint).toContain('mcp-statechart servers');
  }, 40_000);
});

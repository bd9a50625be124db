/**
 * A VS Code mcp.json (`servers`, `inputs`, `${input:…}`, `${env:…}`, `${workspaceFolder}`) loads
 * like an `mcpServers` file: its variables read from the environment, and a warning naming each
 * thing only VS Code can do.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverMcpServers } from '../src/config/index.js';
import { runCli } from './support/cli.js';
import { everythingStdio } from './support/everything.js';

/** VS Code's workspace file, as its documentation writes one: `.vscode/mcp.json` in a folder of the test's home. */
function workspaceFile(config: unknown): { workspace: string; file: string } {
  const workspace = join(process.env.HOME!, 'workspace');
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  const file = join(workspace, '.vscode', 'mcp.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return { workspace, file };
}

const VS_CODE_FILE = {
  inputs: [{ type: 'promptString', id: 'perplexity-key', description: 'Perplexity API Key', password: true }],
  servers: {
    Perplexity: {
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'server-perplexity-ask'],
      env: { PERPLEXITY_API_KEY: '${input:perplexity-key}' },
    },
    github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${env:GITHUB_TOKEN}' } },
    local: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/server.js', '${command:pickPort}'], envFile: '${workspaceFolder}/.env' },
  },
};

describe('a VS Code mcp.json as a config file', () => {
  it('loads its "servers", with ${input:id} and ${env:NAME} read from the environment and ${workspaceFolder} filled in', async () => {
    const { workspace, file } = workspaceFile(VS_CODE_FILE);
    const result = await discoverMcpServers({ configPaths: [file], env: { PERPLEXITY_KEY: 'from-env', GITHUB_TOKEN: 'gh-token' } });
    expect(Object.keys(result.servers)).toEqual(['Perplexity', 'github', 'local']);
    expect(result.servers.Perplexity!.config.env).toEqual({ PERPLEXITY_API_KEY: 'from-env' });
    expect(result.servers.github!).toMatchObject({ transport: 'http', config: { headers: { Authorization: 'Bearer gh-token' } } });
    expect(result.servers.local!.config.args).toEqual([join(workspace, 'server.js'), '${command:pickPort}']);
    // What the file wrote, with the references this loader reads: what an approval prompt would show.
    expect(result.servers.Perplexity!.written?.env).toEqual({ PERPLEXITY_API_KEY: '${PERPLEXITY_KEY}' });
  });

  it('says exactly what it cannot do: a VS Code-only variable, an envFile, an input that is not set', async () => {
    const { file } = workspaceFile(VS_CODE_FILE);
    const result = await discoverMcpServers({ configPaths: [file], env: { GITHUB_TOKEN: 'gh-token' } });
    expect(result.problems.map(({ severity, server, field, message }) => ({ severity, server, field, message }))).toEqual([
      {
        severity: 'warning',
        server: 'Perplexity',
        field: 'env.PERPLEXITY_API_KEY',
        message: 'server "Perplexity": variable PERPLEXITY_KEY is not set (used in "env.PERPLEXITY_API_KEY"); it expands to an empty string',
      },
      {
        severity: 'warning',
        server: 'local',
        field: 'args[1]',
        message:
          'server "local": ${command:pickPort} (used in "args[1]") is a VS Code variable this loader cannot fill in; it is passed as written: write the value, or a ${VAR} from the environment',
      },
      {
        severity: 'warning',
        server: 'local',
        field: 'envFile',
        message: 'server "local": "envFile" is not read here (VS Code reads it): put the variables in "env", as ${VAR} references to the environment',
      },
    ]);
  });

  it("a Cursor mcp.json read directly (mcpServers): its ${env:NAME}, which only Cursor and VS Code fill in, is warned about, not passed on silently", async () => {
    const file = join(process.env.HOME!, 'cursor-mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { search: { command: 'npx', args: ['-y', 'search-server'], env: { API_KEY: '${env:SEARCH_KEY}' } } } }));
    const result = await discoverMcpServers({ configPaths: [file], env: { SEARCH_KEY: 'set' } });
    expect(result.problems.map(({ server, field }) => ({ server, field }))).toEqual([{ server: 'search', field: 'env.API_KEY' }]);
  });

  it('a user-level file (no workspace): ${workspaceFolder} has no value, and the warning says it expands to an empty string', async () => {
    const file = join(process.env.HOME!, 'vscode-user-mcp.json');
    writeFileSync(file, JSON.stringify({ servers: { tool: { command: 'node', args: ['${workspaceFolder}/x.js'] } } }));
    const result = await discoverMcpServers({ configPaths: [file], env: {} });
    expect(result.servers.tool!.config.args).toEqual(['/x.js']);
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        server: 'tool',
        message: 'server "tool": variable workspaceFolder is not set (used in "args[0]"); it expands to an empty string',
      }),
    ]);
  });

  it('reads "mcpServers" when a file has both, and warns that "servers" is not read', async () => {
    const file = join(process.env.HOME!, 'both.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { one: { command: 'one' } }, servers: { two: { command: 'two' } } }));
    const result = await discoverMcpServers({ configPaths: [file], env: {} });
    expect(Object.keys(result.servers)).toEqual(['one']);
    expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning', field: 'servers', message: expect.stringContaining('VS Code\'s "servers" is not read: this file has "mcpServers"') })]);
  });

  it('reads comments and trailing commas, as VS Code does (JSONC), and still places what it reports at the line in the file', async () => {
    const file = join(process.env.HOME!, 'jsonc-mcp.json');
    writeFileSync(
      file,
      [
        '{',
        '  // Servers for this machine: "not": {"a": "key"}',
        '  "servers": {',
        '    /* the docs server */ "docs": { "url": "https://docs.example/mcp", "headers": { "X-Path": "a//b/*c*/", }, },',
        '    "tool": { "command": "one", "command": "two", },',
        '  },',
        '}',
      ].join('\n'),
    );
    const result = await discoverMcpServers({ configPaths: [file], env: {} });
    expect(Object.keys(result.servers)).toEqual(['docs', 'tool']);
    expect(result.servers.docs!.config.headers).toEqual({ 'X-Path': 'a//b/*c*/' });
    expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning', server: 'tool', line: 5, column: 33, message: expect.stringContaining('key "command" is written twice') })]);
  });

  it('runs a server from a VS Code file: call through --config .vscode/mcp.json', async () => {
    const { workspace, file } = workspaceFile({ servers: { everything: { type: 'stdio', ...everythingStdio() } } });
    const run = await runCli(['--config', file, 'call', 'everything', 'echo', '{"message":"from vscode"}'], { cwd: workspace, env: { HOME: process.env.HOME! }, timeoutMs: 40_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('from vscode');
  }, 60_000);
});

/** `import --from` reads other clients' config files, in their own formats, at their usual places (under the test's HOME). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { configHome, USER_FILE_TEXT } from './support/config-command-home.js';

function place(file: string, content: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(content, null, 2));
}

/** The CLI with XDG_CONFIG_HOME inside the test's home, where Linux clients keep their settings. */
function importer() {
  const setup = configHome();
  const cli = (...args: string[]) =>
    runCli(args, { cwd: setup.project, env: { HOME: setup.home, XDG_CONFIG_HOME: join(setup.home, '.config') }, timeoutMs: 30_000 });
  const servers = () => setup.read(setup.userFile).mcpServers as Record<string, unknown>;
  return { ...setup, cli, servers };
}

describe('import', () => {
  it('from Claude Desktop: its mcpServers are added after the existing ones; other content and secrets stay out of the output', async () => {
    const { cli, home, userFile, read, servers } = importer();
    place(join(home, '.config', 'Claude', 'claude_desktop_config.json'), {
      globalShortcut: 'Ctrl+Space',
      mcpServers: {
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/docs'] },
        github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_desktopsecret' } },
      },
    });
    const run = await cli('import', '--from', 'claude-desktop', '--yes');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Imported 2 servers from');
    // The names as every other line prints a server's: through quoted().
    expect(run.stdout).toMatch(/^Imported 2 servers from .*: "filesystem", "github"\.$/m);
    expect(run.stdout + run.stderr).not.toContain('ghp_desktopsecret');
    expect(Object.keys(read(userFile))).toEqual(['theme', 'mcpServers', 'zzz']);
    expect(Object.keys(servers())).toEqual(['first', 'last', 'filesystem', 'github']);
    expect(servers().filesystem).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/docs'] });
  }, 40_000);

  it("from VS Code: the user's and the workspace's servers, inputs and ${env:…} turned into ${VAR} references", async () => {
    const { cli, home, project, servers } = importer();
    place(join(home, '.config', 'Code', 'User', 'mcp.json'), {
      inputs: [{ type: 'promptString', id: 'perplexity-key', description: 'Perplexity API Key', password: true }],
      servers: {
        perplexity: { type: 'stdio', command: 'npx', args: ['-y', 'server-perplexity-ask'], env: { PERPLEXITY_API_KEY: '${input:perplexity-key}' } },
      },
    });
    place(join(project, '.vscode', 'mcp.json'), {
      servers: { github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${env:GITHUB_TOKEN}' } } },
    });
    const run = await cli('import', '--from', 'vscode', '--yes', '--json');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, added: ['perplexity', 'github'], skipped: [] });
    expect(servers().perplexity).toEqual({ type: 'stdio', command: 'npx', args: ['-y', 'server-perplexity-ask'], env: { PERPLEXITY_API_KEY: '${PERPLEXITY_KEY}' } });
    expect(servers().github).toEqual({ type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } });
    // What was imported loads: the loader reads every entry without a problem.
    const listing = JSON.parse((await cli('servers', '--json')).stdout);
    expect(listing.problems.filter((problem: { server?: string }) => problem.server === 'perplexity' || problem.server === 'github')).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('PERPLEXITY_KEY') }),
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('GITHUB_TOKEN') }),
    ]);
  }, 60_000);

  it('an empty or relative XDG_CONFIG_HOME counts as unset, as the XDG spec says: the clients\' files are looked for under ~/.config', async () => {
    const { home, project, servers } = importer();
    place(join(home, '.config', 'Claude', 'claude_desktop_config.json'), { mcpServers: { desktop: { command: 'desktop-server' } } });
    place(join(project, 'relative', 'Claude', 'claude_desktop_config.json'), { mcpServers: { planted: { command: 'planted-server' } } });
    for (const value of ['', 'relative']) {
      const run = await runCli(['import', '--from', 'claude-desktop', '--yes', '--force', '--json'], { cwd: project, env: { HOME: home, XDG_CONFIG_HOME: value }, timeoutMs: 30_000 });
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, added: ['desktop'] });
    }
    expect(servers()).not.toHaveProperty('planted');
  }, 60_000);

  it('from VS Code: a user file with comments and trailing commas, as VS Code lets a person write it', async () => {
    const { cli, home, servers } = importer();
    const file = join(home, '.config', 'Code', 'User', 'mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{\n  // added by hand\n  "servers": {\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], },\n  },\n}\n');
    const run = await cli('import', '--from', 'vscode', '--yes', '--json');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, added: ['memory'], skipped: [] });
    expect(servers().memory).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
  }, 40_000);

  it("from Claude Code: its user scope, this folder's local scope and the project's .mcp.json", async () => {
    const { cli, home, project, servers } = importer();
    place(join(home, '.claude.json'), {
      numStartups: 12,
      mcpServers: { 'user-one': { type: 'stdio', command: 'user-server', args: [], env: {} } },
      projects: {
        [project]: { allowedTools: [], mcpServers: { 'local-one': { type: 'sse', url: 'https://local.example/sse' } } },
        '/somewhere/else': { mcpServers: { 'not-this-folder': { command: 'x' } } },
      },
    });
    place(join(project, '.mcp.json'), { mcpServers: { 'project-one': { command: 'project-server' } } });
    const run = await cli('import', '--from', 'claude-code', '--yes', '--json');
    expect(JSON.parse(run.stdout).added).toEqual(['user-one', 'project-one', 'local-one']);
    expect(servers()['local-one']).toEqual({ type: 'sse', url: 'https://local.example/sse' });
    expect(servers()['not-this-folder']).toBeUndefined();
  }, 40_000);

  it("from Claude Code, run in a subfolder of the project: the project's .mcp.json and its local scope are found by walking up to the git root, as the loader does", async () => {
    const { home, project, servers } = importer();
    place(join(home, '.claude.json'), { projects: { [project]: { mcpServers: { 'local-one': { command: 'local-server' } } } } });
    place(join(project, '.mcp.json'), { mcpServers: { 'project-one': { command: 'project-server' } } });
    const subfolder = join(project, 'src', 'deep');
    mkdirSync(subfolder, { recursive: true });
    const run = await runCli(['import', '--from', 'claude-code', '--yes', '--json'], { cwd: subfolder, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, timeoutMs: 30_000 });
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, added: ['project-one', 'local-one'] });
    expect(servers()['local-one']).toEqual({ command: 'local-server' });
  }, 40_000);

  it("from VS Code and Cursor, run in a subfolder of the workspace: its .vscode/mcp.json and .cursor/mcp.json are found by walking up to the git root, as .mcp.json is", async () => {
    const { home, project, servers } = importer();
    place(join(project, '.vscode', 'mcp.json'), { servers: { 'vscode-one': { command: 'vscode-server' } } });
    place(join(project, '.cursor', 'mcp.json'), { mcpServers: { 'cursor-one': { command: 'cursor-server', args: ['${workspaceFolder}/data'] } } });
    const subfolder = join(project, 'src', 'deep');
    mkdirSync(subfolder, { recursive: true });
    const from = (client: string) =>
      runCli(['import', '--from', client, '--yes', '--json'], { cwd: subfolder, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, timeoutMs: 30_000 });
    expect(JSON.parse((await from('vscode')).stdout)).toMatchObject({ ok: true, added: ['vscode-one'] });
    expect(JSON.parse((await from('cursor')).stdout)).toMatchObject({ ok: true, added: ['cursor-one'] });
    // The workspace is the folder holding .cursor, not the one the command ran in.
    expect(servers()['cursor-one']).toEqual({ command: 'cursor-server', args: [join(project, 'data')] });
  }, 40_000);

  it("from Cursor, run in a folder of the home outside any git checkout: the walk up reaches ~/.cursor/mcp.json, Cursor's own file, which is read once, not as a workspace's file too", async () => {
    const { home, servers } = importer();
    place(join(home, '.cursor', 'mcp.json'), { mcpServers: { 'cursor-one': { command: 'cursor-server' } } });
    const notes = join(home, 'notes');
    mkdirSync(notes, { recursive: true });
    const run = await runCli(['import', '--from', 'cursor', '--yes', '--json'], { cwd: notes, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, timeoutMs: 30_000 });
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, added: ['cursor-one'], skipped: [] });
    expect(servers()['cursor-one']).toEqual({ command: 'cursor-server' });
  }, 40_000);

  it("from Claude Code: of a name in two scopes, the one Claude Code uses (local, then project, then user) is imported, and the other is said to be left", async () => {
    const { cli, home, project, servers } = importer();
    place(join(home, '.claude.json'), {
      mcpServers: { notes: { command: 'user-notes' } },
      projects: { [project]: { mcpServers: { notes: { command: 'local-notes', env: { TOKEN: 'local-scope-secret' } } } } },
    });
    place(join(project, '.mcp.json'), { mcpServers: { notes: { command: 'project-notes' } } });
    const run = await cli('import', '--from', 'claude-code', '--yes');
    expect(run.code).toBe(0);
    expect(servers().notes).toEqual({ command: 'local-notes', env: { TOKEN: 'local-scope-secret' } });
    const claudeJson = join(home, '.claude.json');
    expect(run.stdout.split('\n').filter((line) => line.startsWith('Skipped'))).toEqual([
      `Skipped "notes": the one in ${claudeJson}: claude-code uses the one in ${join(project, '.mcp.json')} instead, which is imported.`,
      `Skipped "notes": the one in ${join(project, '.mcp.json')}: claude-code uses the one in ${claudeJson} (its local scope for ${project}) instead, which is imported.`,
    ]);
    expect(run.stdout + run.stderr).not.toContain('local-scope-secret');
  }, 40_000);

  it('an entry that is not an object is said to be skipped, with its file, never dropped silently', async () => {
    const { cli, home, servers } = importer();
    const file = join(home, '.config', 'Claude', 'claude_desktop_config.json');
    place(file, { mcpServers: { good: { command: 'good-server' }, typo: 'npx -y some-server', gone: null, listed: ['npx'] } });
    const run = await cli('import', '--from', 'claude-desktop', '--yes', '--json');
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ ok: true, added: ['good'] });
    expect(answer.skipped).toEqual([
      { name: 'typo', reason: `its entry in ${file} is a string, not an object with a "command" or a "url"` },
      { name: 'gone', reason: `its entry in ${file} is null, not an object with a "command" or a "url"` },
      { name: 'listed', reason: `its entry in ${file} is a list, not an object with a "command" or a "url"` },
    ]);
    expect(Object.keys(servers())).toEqual(['first', 'last', 'good']);
  }, 40_000);

  it('a name skipped in two of the client\'s files is said once for each, naming it; a bad name is said in one sentence', async () => {
    const { cli, home, project, userFile } = importer();
    const claudeJson = join(home, '.claude.json');
    place(claudeJson, { mcpServers: { first: { command: 'user-first' }, 'bad name': { command: 'x' } } });
    place(join(project, '.mcp.json'), { mcpServers: { first: { command: 'project-first' } } });
    const run = await cli('import', '--from', 'claude-code', '--yes');
    expect(run.stdout.split('\n').filter((line) => line.startsWith('Skipped'))).toEqual([
      `Skipped "first": the one in ${claudeJson}: already defined in ${userFile} (--force replaces it).`,
      `Skipped "bad name": the one in ${claudeJson}: "bad name" is not a usable server name: use letters and digits (of any script), "_", "." and "-" (up to 64 characters, starting with a letter or digit); import it under another name with --rename "bad name=bad-name".`,
      `Skipped "first": the one in ${join(project, '.mcp.json')}: already defined in ${userFile} (--force replaces it).`,
    ]);
  }, 40_000);

  it('a skipped name from the client\'s file is shown as names are (escaped, cut, lookalikes noted), never raw to the terminal', async () => {
    const { cli, home } = importer();
    const long = `n${'x'.repeat(4_999)}`;
    const escaping = 'x\u001b]0;pwned\u0007';
    place(join(home, '.config', 'Claude', 'claude_desktop_config.json'), { mcpServers: { [long]: null, [escaping]: { command: 'x' }, 'f\u0455': null, good: { command: 'good-server' } } });
    const run = await cli('import', '--from', 'claude-desktop', '--yes');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(run.stdout).not.toContain('x'.repeat(200));
    expect(run.stdout.split('\n').filter((line) => line.startsWith('Skipped')).map((line) => line.slice(0, line.indexOf(':')))).toEqual([
      `Skipped "n${'x'.repeat(119)}…" (5,000 characters)`,
      'Skipped "fѕ" (mixed scripts',
      'Skipped "x\\x1b]0;pwned\\x07"',
    ]);
  }, 40_000);

  it('from VS Code: what only VS Code does (envFile, ${command:…}) is copied as written and still warned about in our file, never dropped silently', async () => {
    const { cli, project } = importer();
    place(join(project, '.vscode', 'mcp.json'), {
      servers: { local: { command: 'node', args: ['${workspaceFolder}/server.js', '${command:pickPort}'], envFile: '${workspaceFolder}/.env' } },
    });
    expect((await cli('import', '--from', 'vscode', '--yes')).code).toBe(0);
    const listing = JSON.parse((await cli('servers', '--json')).stdout);
    expect(listing.problems.filter((problem: { server?: string }) => problem.server === 'local').map((problem: { field: string }) => problem.field)).toEqual(['args[1]', 'envFile']);
  }, 60_000);

  it("a name unusable here (Claude Desktop's \"My Notes\", Cline's \"github.com/…/brave-search\") is imported under the name --rename gives; a --rename of a name the client lacks is refused", async () => {
    const { cli, home, servers } = importer();
    place(join(home, '.config', 'Claude', 'claude_desktop_config.json'), {
      mcpServers: { 'My Notes': { command: 'notes-server' }, 'github.com/modelcontextprotocol/servers/tree/main/src/brave-search': { command: 'brave' } },
    });
    const run = await cli('import', '--from', 'claude-desktop', '--yes', '--rename', 'My Notes=my-notes', '--rename', 'github.com/modelcontextprotocol/servers/tree/main/src/brave-search=brave-search');
    expect(run.stdout).toContain(': "my-notes", "brave-search".');
    expect(servers()['my-notes']).toEqual({ command: 'notes-server' });
    expect(servers()['brave-search']).toEqual({ command: 'brave' });
    const unknown = await cli('import', '--from', 'claude-desktop', '--yes', '--rename', 'Notes=n');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('--rename names "Notes", which claude-desktop does not define. Nothing was imported.');
  }, 40_000);

  it('an entry the loader would skip (a transport not spoken here) is said to be skipped with the loader\'s reason, not written to sit unused; one with a ${VAR} is copied', async () => {
    const { cli, home, servers } = importer();
    const claudeJson = join(home, '.claude.json');
    place(claudeJson, { mcpServers: { ws: { type: 'ws', url: 'ws://127.0.0.1:1234' }, later: { url: '${LATER_URL}' }, fine: { type: 'sse', url: 'https://fine.example/sse' } } });
    const run = await cli('import', '--from', 'claude-code', '--yes');
    expect(run.stdout).toContain(
      `Skipped "ws": the one in ${claudeJson}: it would not start here: "type" names WebSocket, which is not an MCP transport this client speaks (MCP servers are reached over stdio, Streamable HTTP or SSE): give the server's http(s) URL with "type": "http" (or "sse"), or a "command" to run it over stdio.`,
    );
    expect(Object.keys(servers())).toEqual(['first', 'last', 'later', 'fine']);
  }, 40_000);

  it('an entry the client keeps disabled is shown so before asking, and stays disabled', async () => {
    const { cli, home, servers } = importer();
    place(join(home, '.cursor', 'mcp.json'), { mcpServers: { off: { command: 'off-server', disabled: true }, on: { command: 'on-server' } } });
    const asked = await cli('import', '--from', 'cursor');
    expect(asked.stderr).toMatch(/Server "off" from .*\n\s+runs:\s+off-server\n\s+disabled:\s+yes, as in that file: it does not start until "disabled" is removed\n/);
    expect(asked.stderr.match(/disabled:/g)).toHaveLength(1);
    expect((await cli('import', '--from', 'cursor', '--yes')).code).toBe(0);
    expect(servers().off).toEqual({ command: 'off-server', disabled: true });
  }, 40_000);

  it("Cline's \"timeout\" (seconds) is written as \"timeoutMs\" and said so before asking; one that cannot be converted is said to be copied unread", async () => {
    const { cli, home, servers } = importer();
    const file = join(home, 'cline_mcp_settings.json');
    place(file, {
      mcpServers: {
        slow: { command: 'slow-server', timeout: 300, autoApprove: [] },
        both: { command: 'both-server', timeout: 10, timeoutMs: 5_000 },
        words: { command: 'words-server', timeout: 'long' },
      },
    });
    const asked = await cli('import', '--from', file);
    expect(asked.stderr).toContain('"slow": its "timeout": 300 (seconds, as Cline writes it) is written as "timeoutMs": 300000, the time each of its requests may take here.');
    const run = await cli('import', '--from', file, '--yes');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"both": its "timeout" is copied as written but not read here: its "timeoutMs" sets that limit.');
    expect(run.stdout).toContain('"words": its "timeout" is copied as written but not read here: a request\'s limit is "timeoutMs", a number of milliseconds up to 2147483647.');
    expect(servers().slow).toEqual({ command: 'slow-server', autoApprove: [], timeoutMs: 300_000 });
    expect(servers().both).toEqual({ command: 'both-server', timeout: 10, timeoutMs: 5_000 });
  }, 40_000);

  it("a server name, or a field of one, written twice in the client's file is pointed out before asking: the last one is imported, as the client reads it", async () => {
    const { cli, home, servers } = importer();
    const file = join(home, '.cursor', 'mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      ['{', '  "mcpServers": {', '    "fs": { "command": "first-fs" },', '    "fs": { "command": "second-fs" },', '    "docs": { "url": "https://one.example/mcp", "url": "https://two.example/mcp" }', '  },', '  "theme": "a", "theme": "b"', '}'].join('\n'),
    );
    const asked = await cli('import', '--from', 'cursor');
    expect(asked.stderr).toContain(`The server "fs" is written twice in ${file} (the second at line 4): the last one is imported, as the client reads it; check it is the one you meant.`);
    expect(asked.stderr).toContain(`"docs": its "url" is written twice in ${file} (the second at line 5): the last one is imported`);
    expect(asked.stderr).not.toContain('"theme"');
    expect((await cli('import', '--from', 'cursor', '--yes')).code).toBe(0);
    expect(servers().fs).toEqual({ command: 'second-fs' });
  }, 40_000);

  it('an entry nested thousands of levels deep is skipped, naming its field; the others are imported', async () => {
    const { cli, home, servers } = importer();
    const file = join(home, 'deep.json');
    writeFileSync(file, `{"mcpServers":{"deep":{"command":"x","extra":${'['.repeat(20_000)}${']'.repeat(20_000)}},"plain":{"command":"plain-server"}}}`);
    const run = await cli('import', '--from', file, '--yes');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Skipped "deep": its "extra" in ${file} is nested deeper than 256 levels, the most this client reads.`);
    expect(servers().plain).toEqual({ command: 'plain-server' });
  }, 40_000);

  it("from Cursor: ~/.cursor/mcp.json", async () => {
    const { cli, home, servers } = importer();
    place(join(home, '.cursor', 'mcp.json'), { mcpServers: { 'cursor-one': { url: 'https://cursor.example/mcp', headers: { 'X-Key': '${env:CURSOR_KEY}' } } } });
    expect((await cli('import', '--from', 'cursor', '--yes')).code).toBe(0);
    expect(servers()['cursor-one']).toEqual({ url: 'https://cursor.example/mcp', headers: { 'X-Key': '${CURSOR_KEY}' } });
  }, 40_000);

  it("from Cursor: a project's .cursor/mcp.json, its ${workspaceFolder} and ${userHome} filled in as Cursor fills them", async () => {
    const { cli, home, project, servers } = importer();
    place(join(project, '.cursor', 'mcp.json'), { mcpServers: { tool: { command: '${userHome}/bin/tool', args: ['${workspaceFolder}/data'] } } });
    expect((await cli('import', '--from', 'cursor', '--yes')).code).toBe(0);
    expect(servers().tool).toEqual({ command: join(home, 'bin', 'tool'), args: [join(project, 'data')] });
  }, 40_000);

  it('without a terminal and without --yes it shows what it would add and imports nothing; a name already there needs --force', async () => {
    const { cli, home, userFile, servers } = importer();
    place(join(home, 'team.json'), { mcpServers: { first: { command: 'team-first' }, extra: { command: 'team-extra', env: { TOKEN: 'team-secret' } } } });
    const refused = await cli('import', '--from', join(home, 'team.json'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`This server would be added to ${userFile} (user scope):`);
    expect(refused.stderr).toMatch(/Server "extra" from .*team\.json \(stdio\):\n\s+runs:\s+team-extra\n\s+env:\s+TOKEN \(values not shown\)/);
    expect(refused.stderr).toContain(`Skipped "first": the one in ${join(home, 'team.json')}: already defined in ${userFile} (--force replaces it).`);
    // What would be added comes first, as it is; the one line headed "Error:" says what did not happen and why.
    expect(refused.stderr.split('\n')[0]).toBe(`This server would be added to ${userFile} (user scope):`);
    expect(refused.stderr.split('\n').filter((line) => line.startsWith('Error:'))).toEqual([
      'Error: Nothing was imported: confirm on a terminal, or add --yes to import without asking.',
    ]);
    expect(refused.stderr).not.toContain('team-secret');
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
    const json = await cli('import', '--from', join(home, 'team.json'), '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, code: 'NEEDS_CONFIRMATION' });
    const forced = await cli('import', '--from', join(home, 'team.json'), '--yes', '--force');
    expect(forced.code).toBe(0);
    expect(servers().first).toEqual({ command: 'team-first' });
  }, 60_000);

  it('with --force, what it would replace is said before asking, and after: a definition already there is never replaced unseen', async () => {
    const { cli, home, userFile, servers } = importer();
    place(join(home, 'team.json'), { mcpServers: { first: { command: 'team-first' }, extra: { command: 'team-extra' } } });
    const asked = await cli('import', '--from', join(home, 'team.json'), '--force');
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain(`Replaces the "first" already defined in ${userFile} (--force).`);
    expect(asked.stderr).not.toContain('"extra" already defined');
    const forced = await cli('import', '--from', join(home, 'team.json'), '--force', '--yes', '--json');
    expect(JSON.parse(forced.stdout)).toMatchObject({ ok: true, added: ['first', 'extra'], replaced: ['first'] });
    expect(servers().first).toEqual({ command: 'team-first' });
  }, 60_000);

  it('into the user file, it says that a running serve keeps the imported servers off until approved (as add says); not into the project file', async () => {
    const { cli, home } = importer();
    place(join(home, 'team.json'), { mcpServers: { alpha: { command: 'node', args: ['alpha.js'] }, 'beta.2': { command: 'node', args: ['beta.js'] } } });
    const user = await cli('import', '--from', join(home, 'team.json'), '--yes');
    expect(user.code).toBe(0);
    expect(user.stdout).toContain(
      "A running `mcp-statechart serve` keeps them off until you confirm them on a terminal with `mcp-statechart approve alpha beta.2`; a serve started from now on runs them as they are.",
    );
    place(join(home, 'solo.json'), { mcpServers: { solo: { command: 'node', args: ['solo.js'] } } });
    const project = await cli('import', '--from', join(home, 'solo.json'), '--scope', 'project', '--yes');
    expect(project.code).toBe(0);
    expect(project.stdout).not.toContain('A running `mcp-statechart serve`');
  }, 60_000);

  it('into the project scope, the imported servers count as approved by the person who confirmed', async () => {
    const { cli, home } = importer();
    place(join(home, 'team.json'), { mcpServers: { shared: { command: 'node', args: ['shared.js'] } } });
    expect((await cli('import', '--from', join(home, 'team.json'), '--scope', 'project', '--yes')).code).toBe(0);
    const listed = JSON.parse((await cli('--project-servers', 'ask', 'servers', '--json')).stdout);
    expect(listed.servers.find((server: { name: string }) => server.name === 'shared')).toMatchObject({ scope: 'project', disabled: false });
  }, 60_000);

  it("into the project scope, credentials written as they are in the client's own file are pointed out (never shown): the project's file is shared", async () => {
    const { cli, home, projectFile } = importer();
    place(join(home, '.config', 'Claude', 'claude_desktop_config.json'), {
      mcpServers: {
        github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_desktopsecret' } },
        docs: { url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
      },
    });
    const run = await cli('import', '--from', 'claude-desktop', '--scope', 'project', '--yes');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`"github" has credentials written as they are ("env.GITHUB_PERSONAL_ACCESS_TOKEN"), and ${projectFile} is shared with the project: put \${VAR} references there before committing it.`);
    expect(run.stdout).not.toContain('"docs" has credentials');
    expect(run.stdout + run.stderr).not.toContain('ghp_desktopsecret');
  }, 60_000);

  it('a client with no config file says where it looked', async () => {
    const { cli, home } = importer();
    const run = await cli('import', '--from', 'cursor', '--json');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'NOTHING_TO_IMPORT' });
    expect(JSON.parse(run.stdout).error).toContain(join(home, '.cursor', 'mcp.json'));
  }, 40_000);

  it('a file named that is not there, or holds no servers, is said to be so, with what --from takes (not told to name a file)', async () => {
    const { cli, home, project } = importer();
    const missing = await cli('import', '--from', './team-mcp.json');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `Error: No servers found in ${join(project, 'team-mcp.json')}: there is no such file. --from takes a client (claude-desktop, claude-code, vscode, cursor) or the path of a file that defines servers.\n`,
    );
    place(join(home, 'settings.json'), { theme: 'dark' });
    const empty = await cli('import', '--from', join(home, 'settings.json'), '--json');
    expect(JSON.parse(empty.stdout)).toMatchObject({ ok: false, code: 'NOTHING_TO_IMPORT' });
    expect(JSON.parse(empty.stdout).error).toMatch(/^No servers found in .*settings\.json: it has no "mcpServers" \(or VS Code's "servers"\) object\. --from takes a client/);
  }, 40_000);
  it('a FIFO named with --from, or planted as the .mcp.json of a cloned project, is refused at once as the loader refuses it, never waited on', async () => {
    const { cli, home, project } = importer();
    const fifo = join(home, 'servers.json');
    execFileSync('mkfifo', [fifo]);
    const named = await cli('import', '--from', fifo, '--yes', '--json');
    expect(JSON.parse(named.stdout)).toMatchObject({ ok: false, code: 'CONFIG_UNREADABLE', error: `Could not read ${fifo}: it is not a regular file. Nothing was changed.` });
    execFileSync('mkfifo', [join(project, '.mcp.json')]);
    const planted = await cli('import', '--from', 'claude-code', '--yes');
    expect(planted.code).toBe(1);
    expect(planted.stderr).toContain(`Could not read ${join(project, '.mcp.json')}: it is not a regular file.`);
  }, 60_000);

  it("reads a client's file past the 16 MB of a config file of ours: Claude Code's ~/.claude.json holds its history too", async () => {
    const { cli, home, servers } = importer();
    const history = Array.from({ length: 17 * 1024 }, (_, index) => ({ display: `prompt ${index} ${'h'.repeat(1000)}` }));
    place(join(home, '.claude.json'), { history, mcpServers: { 'user-one': { command: 'user-server' } } });
    const run = await cli('import', '--from', 'claude-code', '--yes', '--json');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, added: ['user-one'] });
    expect(servers()['user-one']).toEqual({ command: 'user-server' });
  }, 60_000);

  it('a file over 256 MB is refused before it is read, in the loader\'s words', async () => {
    const { cli, home, userFile } = importer();
    const huge = join(home, 'huge.json');
    // Sparse: its size is on record, no byte of it is written or read.
    writeFileSync(huge, '');
    truncateSync(huge, 257 * 1024 * 1024);
    const before = readFileSync(userFile, 'utf8');
    const run = await cli('import', '--from', huge, '--yes', '--json');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'CONFIG_UNREADABLE', error: `Could not read ${huge}: it is 257 MB; the limit is 256 MB. Nothing was changed.` });
    expect(readFileSync(userFile, 'utf8')).toBe(before);
  }, 60_000);
});

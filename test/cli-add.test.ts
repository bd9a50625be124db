/** `add` and `add-json` write an entry and leave everything else in the file as it was. */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configHome, USER_FILE_TEXT } from './support/config-command-home.js';
import { stdioFixture } from './support/fixtures.js';
import { answerText, initializeAndLoad, startServeIn } from './support/serve-host.js';

describe('add', () => {
  it('adds a stdio server to the user file, keeping its other content, key order and indentation', async () => {
    const { cli, userFile, read } = configHome();
    const run = await cli('add', 'memory', '-e', 'API_KEY=${MEMORY_KEY}', '--', 'npx', '-y', '@modelcontextprotocol/server-memory');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Added stdio server "memory" in ${userFile} (user scope).`);
    const written = read(userFile);
    expect(Object.keys(written)).toEqual(['theme', 'mcpServers', 'zzz']);
    expect(written.zzz).toEqual([1, 2]);
    expect(Object.keys(written.mcpServers as object)).toEqual(['first', 'last', 'memory']);
    expect((written.mcpServers as Record<string, unknown>).memory).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { API_KEY: '${MEMORY_KEY}' },
    });
    expect(readFileSync(userFile, 'utf8')).toMatch(/^{\n {4}"theme"/);
  }, 40_000);

  it('adds an http server with a header, and never prints the header value', async () => {
    const { cli, userFile, read } = configHome();
    const run = await cli('add', '--json', '-H', 'Authorization: Bearer s3cr3t-value', 'docs', 'https://docs.example/mcp');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, name: 'docs', scope: 'user', file: userFile, replaced: false });
    expect(run.stdout + run.stderr).not.toContain('s3cr3t-value');
    expect((read(userFile).mcpServers as Record<string, unknown>).docs).toEqual({
      type: 'http',
      url: 'https://docs.example/mcp',
      headers: { Authorization: 'Bearer s3cr3t-value' },
    });
  }, 40_000);

  it('refuses to replace an entry without --force, saying what to do, and leaves the file untouched', async () => {
    const { cli, userFile } = configHome();
    const refused = await cli('add', 'first', '--json', '--', 'other');
    expect(refused.code).toBe(1);
    const report = JSON.parse(refused.stdout);
    expect(report).toMatchObject({ ok: false, code: 'ALREADY_EXISTS' });
    expect(report.error).toContain('--force');
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
    const forced = await cli('add', 'first', '--force', '--', 'other');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('Replaced stdio server "first"');
  }, 40_000);

  it('refuses a file that is not valid JSON instead of overwriting it', async () => {
    const { cli, userFile } = configHome();
    writeFileSync(userFile, '{ "mcpServers": { ');
    const run = await cli('add', 'x', '--', 'cmd');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/is not valid JSON \(line 1, column \d+/);
    expect(readFileSync(userFile, 'utf8')).toBe('{ "mcpServers": { ');
  }, 40_000);

  it('refuses a project file that is a FIFO (one planted in a cloned repository) at once, as the loader does, instead of waiting on it', async () => {
    const { cli, projectFile } = configHome();
    execFileSync('mkfifo', [projectFile]);
    const run = await cli('add', '--scope', 'project', 'tool', '--', 'node', 'tool.js');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: Could not read ${projectFile}: it is not a regular file. Nothing was changed.\n`);
  }, 40_000);

  it('adds a project server that then runs under --project-servers ask without asking: the person who added it approved it', async () => {
    const { cli, projectFile, read } = configHome();
    const run = await cli('add', '--scope', 'project', 'tool', '--', 'node', 'tool.js');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('counts as approved by you');
    expect(run.stdout).not.toContain('mcp-statechart approve');
    expect(read(projectFile)).toEqual({ mcpServers: { tool: { command: 'node', args: ['tool.js'] } } });
    const listing = await cli('--project-servers', 'ask', 'servers', '--json');
    const tool = JSON.parse(listing.stdout).servers.find((server: { name: string }) => server.name === 'tool');
    expect(tool).toMatchObject({ scope: 'project', disabled: false });
    expect(tool.trust).toBeUndefined();
  }, 60_000);

  it("a project server given a credential as it is (--env K=literal, a header) is pointed out, value never shown, as import does: the project's file is shared", async () => {
    const { cli, projectFile } = configHome();
    const run = await cli('add', '--scope', 'project', '--env', 'GITHUB_TOKEN=ghp_projectsecret', '--env', 'REGION=${REGION}', 'github', '--', 'npx', 'server-github');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`"github" has credentials written as they are ("env.GITHUB_TOKEN"), and ${projectFile} is shared with the project: put \${VAR} references there before committing it.`);
    expect(run.stdout + run.stderr).not.toContain('ghp_projectsecret');
    const json = await cli('add-json', '--scope', 'project', 'docs', JSON.stringify({ url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer docs-secret-value' } }));
    expect(json.stdout).toContain(`"docs" has credentials written as they are ("headers.Authorization"), and ${projectFile} is shared`);
    const referenced = await cli('add', '--scope', 'project', '--env', 'GITHUB_TOKEN=${GITHUB_TOKEN}', 'safe', '--', 'npx', 'server-github');
    const user = await cli('add', '--env', 'GITHUB_TOKEN=ghp_usersecret', 'mine', '--', 'npx', 'server-github');
    expect(referenced.stdout + user.stdout).not.toContain('has credentials written as they are');
  }, 60_000);

  it('a server added to the user file while serve runs is kept off by that serve until approved, and add tells the person so', async () => {
    const { cli, home } = configHome();
    const serve = startServeIn(home);
    try {
      await initializeAndLoad(serve, []);
      const fixture = stdioFixture();

      const run = await cli('add', 'tiny', '--', fixture.command, ...fixture.args!);

      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        'A running `mcp-statechart serve` keeps it off until you confirm it on a terminal with `mcp-statechart approve tiny`; a serve started from now on runs it as it is.',
      );
      let loaded = '';
      for (let id = 10; !loaded.includes('mcp-statechart approve tiny') && id < 110; id++) {
        serve.send({ id, method: 'tools/call', params: { name: 'load_mcp', arguments: { server: 'tiny' } } });
        loaded = answerText(await serve.answer(id));
        await new Promise((done) => setTimeout(done, 100));
      }
      expect(loaded).toContain('while mcp-statechart serve was running');
    } finally {
      serve.end();
      await serve.exited;
    }
  }, 60_000);

  it('a project entry edited by hand after it was added needs approval again', async () => {
    const { cli, projectFile } = configHome();
    await cli('add', '--scope', 'project', 'tool', '--', 'node', 'tool.js');
    writeFileSync(projectFile, JSON.stringify({ mcpServers: { tool: { command: 'node', args: ['evil.js'] } } }));
    const listing = await cli('--project-servers', 'ask', 'servers', '--json');
    expect(JSON.parse(listing.stdout).servers.find((server: { name: string }) => server.name === 'tool').trust).toBe('awaiting approval');
  }, 60_000);

  it('two adds at once both land (the write is locked and atomic)', async () => {
    const { cli, userFile, read } = configHome();
    const runs = await Promise.all(['one', 'two', 'three'].map((name) => cli('add', name, '--', `${name}-server`)));
    for (const run of runs) expect(run.code).toBe(0);
    expect(Object.keys(read(userFile).mcpServers as object).sort()).toEqual(['first', 'last', 'one', 'three', 'two']);
  }, 60_000);

  it('writes through a symlinked config file (a dotfiles checkout): the link stays, its target gets the entry', async () => {
    const { cli, home, userFile, read } = configHome();
    const dotfiles = join(home, 'dotfiles');
    mkdirSync(dotfiles);
    const target = join(dotfiles, 'mcp.json');
    renameSync(userFile, target);
    symlinkSync(target, userFile);
    const run = await cli('add', 'memory', '--', 'memory-server');
    expect(run.code).toBe(0);
    expect(lstatSync(userFile).isSymbolicLink()).toBe(true);
    expect(Object.keys(read(target).mcpServers as object)).toEqual(['first', 'last', 'memory']);
    const removed = await cli('remove', 'first');
    expect(removed.code).toBe(0);
    expect(lstatSync(userFile).isSymbolicLink()).toBe(true);
    expect(Object.keys(read(target).mcpServers as object)).toEqual(['last', 'memory']);
  }, 60_000);

  it('refuses a URL that is not http(s), instead of writing it as a stdio command that cannot run', async () => {
    const { cli, userFile } = configHome();
    const before = readFileSync(userFile, 'utf8');
    const run = await cli('add', 'live', 'ws://127.0.0.1:8808/mcp');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: ws:// is not a URL an MCP server is reached at here: http and sse servers have an http:// or https:// URL. Nothing was written.\n');
    expect(readFileSync(userFile, 'utf8')).toBe(before);
  }, 40_000);

  it('refuses a URL with a password, which fetch never sends, and does not echo it', async () => {
    const { cli, userFile } = configHome();
    const before = readFileSync(userFile, 'utf8');
    const add = await cli('add', 'web', 'https://me:hunter2@docs.example/mcp');
    const addJson = await cli('add-json', 'web', '{"url":"https://me:hunter2@docs.example/mcp"}', '--json');
    expect(add.code).toBe(1);
    expect(add.stderr).toContain("the URL carries a user name or password, which is never sent (fetch refuses such a URL) and would be stored as plain text: give the credential as a header instead, -H 'Authorization: Bearer ${TOKEN}'. Nothing was written.");
    expect(JSON.parse(addJson.stdout)).toMatchObject({ ok: false, code: 'INVALID_ENTRY' });
    expect(JSON.parse(addJson.stdout).error).toContain('"headers": {"Authorization": "Bearer ${TOKEN}"}');
    expect(add.stdout + add.stderr + addJson.stdout + addJson.stderr).not.toContain('hunter2');
    expect(readFileSync(userFile, 'utf8')).toBe(before);
  }, 40_000);

  it('takes names in any script, as a hand-written config does: 天気 and café are written', async () => {
    const { cli, userFile, read } = configHome();
    const [japanese, accented] = [await cli('add', '天気', 'node', 'tenki.js'), await cli('add', 'caf\u00e9', 'node', 'cafe.js')];
    expect([japanese.code, accented.code]).toEqual([0, 0]);
    expect((read(userFile).mcpServers as Record<string, unknown>)['天気']).toEqual({ command: 'node', args: ['tenki.js'] });
    expect((read(userFile).mcpServers as Record<string, unknown>)['caf\u00e9']).toEqual({ command: 'node', args: ['cafe.js'] });
  }, 40_000);

  it('refuses a name with a space, a name that would print like another (NFD, mixed scripts), and cuts a name of thousands of characters', async () => {
    const { cli, userFile } = configHome();
    const before = readFileSync(userFile, 'utf8');
    const spaced = await cli('add', 'my server', 'node', 'server.js');
    const decomposed = await cli('add', 'cafe\u0301', 'node', 'server.js');
    const mixed = await cli('add', 'f\u0455', 'node', 'server.js');
    const long = await cli('add', '天'.repeat(5_000), 'node', 'server.js');
    expect(spaced.code).toBe(1);
    expect(spaced.stderr).toBe('Error: "my server" is not a usable server name: use letters and digits (of any script), "_", "." and "-" (up to 64 characters, starting with a letter or digit).\n');
    expect(decomposed.stderr).toBe(
      'Error: "cafe\u0301" (not NFC) is not a usable server name: it would print like a name written otherwise; type its accents as composed letters (NFC) and its letters in one script.\n',
    );
    expect(mixed.stderr).toContain('"f\u0455" (mixed scripts: Cyrillic \u0455 U+0455) is not a usable server name');
    expect(long.stderr).toContain(`"${'天'.repeat(120)}…" (5,000 characters) is not a usable server name`);
    expect(readFileSync(userFile, 'utf8')).toBe(before);
  }, 40_000);

  it("an option of the server's written without -- before it: the error shows where the -- goes, and nothing is written", async () => {
    const { cli, userFile } = configHome();
    const before = readFileSync(userFile, 'utf8');
    const run = await cli('add', 'memory', 'npx', '-y', '@modelcontextprotocol/server-memory');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: unknown option '-y'\n(Is it the server's own? Its command and arguments go after --: mcp-statechart add memory -- npx -y …)");
    expect(readFileSync(userFile, 'utf8')).toBe(before);
    const own = await cli('add', '--nope', 'memory', 'npx');
    expect(own.stderr).toContain("error: unknown option '--nope'");
    expect(own.stderr).not.toContain('go after --');
  }, 40_000);

  it('says why a stdio server cannot take -H', async () => {
    const { cli } = configHome();
    const run = await cli('add', 'x', '-H', 'A: b', '--json', '--', 'cmd');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(JSON.parse(run.stdout).error).toContain('--transport http');
  }, 40_000);
});

describe('add-json', () => {
  it('adds the entry as given, fields in the order written', async () => {
    const { cli, userFile, read } = configHome();
    const run = await cli('add-json', 'weather', '{"url":"https://w.example/mcp","type":"sse","description":"weather"}');
    expect(run.code).toBe(0);
    expect(Object.keys((read(userFile).mcpServers as Record<string, object>).weather!)).toEqual(['url', 'type', 'description']);
  }, 40_000);

  it('refuses an entry whose indented text would push the file over the size discovery reads, which would lose every server in it', async () => {
    const { cli, userFile } = configHome();
    // 80 KB on the command line, 250 levels deep; written with two-space indentation, about 20 MB.
    const deep = `{"command":"node","extra":${'['.repeat(250)}${Array.from({ length: 40_000 }, () => 0).join(',')}${']'.repeat(250)}}`;
    const run = await cli('add-json', 'deep', deep, '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'INVALID_ENTRY' });
    expect(JSON.parse(run.stdout).error).toMatch(/over the 16 MB that is read of a config file, and none of its servers would load .*Nothing was changed\.$/);
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  }, 40_000);

  it('refuses an entry the loader would refuse, naming the field', async () => {
    const { cli, userFile } = configHome();
    const run = await cli('add-json', 'bad', '{"command":"x","env":{"K":1}}', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'INVALID_ENTRY' });
    expect(JSON.parse(run.stdout).error).toContain('"env.K"');
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  }, 40_000);

  it('refuses an entry nested ~20,000 levels deep in words (was "Maximum call stack size exceeded")', async () => {
    const { cli, userFile } = configHome();
    const deep = `{"command":"x","extra":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const run = await cli('add-json', 'deep', deep);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the definition is nested deeper than 256 levels, the most this client accepts. Nothing was written.');
    expect(run.stderr).not.toContain('call stack');
    const json = await cli('add-json', 'deep', deep, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, code: 'INVALID_JSON' });
    expect(readFileSync(userFile, 'utf8')).toBe(USER_FILE_TEXT);
  }, 40_000);

  it('refuses to change a file holding a value 20,000 levels deep (it parses, but cannot be written back) in words, changing nothing', async () => {
    const { cli, userFile } = configHome();
    const text = `{"mcpServers":{"first":{"command":"first-server"}},"history":${'['.repeat(20_000)}${']'.repeat(20_000)}}\n`;
    writeFileSync(userFile, text);

    const run = await cli('add', 'x', '--json', '--', 'cmd');

    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      code: 'CONFIG_INVALID',
      error: `${userFile} holds a value nested too deeply (thousands of levels) to be written back. Nothing was changed.`,
      hint: 'Make that value flatter or remove it by hand, then run the command again.',
    });
    expect(readFileSync(userFile, 'utf8')).toBe(text);
  }, 40_000);
});

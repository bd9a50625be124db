import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInTerminal } from './support/terminal.js';
import { CLI_COMMAND, runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { MODERN_SERVER } from './support/modern-server.js';

const NOTES_SERVER = fileURLToPath(new URL('../examples/servers/notes-server.mjs', import.meta.url));

/** A server whose command fails at start, as one missing a variable does. */
const CRASHING_AT_START = "process.stderr.write('notes-server: NOTES_DIR is not set\\n'); process.exit(2)";

let home: string;
let config: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-one-shot-'));
  config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        notes: { command: process.execPath, args: [NOTES_SERVER] },
        missing: { command: 'uvx-not-installed-here' },
        crashing: { command: process.execPath, args: ['-e', CRASHING_AT_START] },
        modern: { command: process.execPath, args: [MODERN_SERVER] },
      },
    }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const cli = (args: string[], input?: string) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, input, timeoutMs: 30_000 });

describe('call: where the arguments come from', () => {
  it('reads them from stdin with -', async () => {
    const run = await cli(['call', 'notes', 'search_notes', '-'], '{"query": "coffee"}');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('#2 Groceries: Coffee, oat milk, rice.');
  });

  it('typed on the terminal with -: a question after them (approval) is not asked on the input they ended, it is refused at once, saying why', async () => {
    const command = [...[CLI_COMMAND.command, ...CLI_COMMAND.args], '--config', config, '--approve', 'always', 'call', 'notes', 'search_notes', '-'].map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
    const terminal = spawn('script', ['-qfec', command, '/dev/null'], { cwd: home, env: { ...process.env, HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    terminal.stdout.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => terminal.on('close', (code) => resolve(code)));
    const guard = setTimeout(() => terminal.kill('SIGKILL'), 20_000);
    // Typed, then Ctrl-D at the start of a line: the end of the terminal's input.
    terminal.stdin.write('{"query": "coffee"}\n\x04');
    const code = await exited;
    clearTimeout(guard);
    expect(code).toBe(1);
    expect(output).toContain('the terminal\'s input went to the tool arguments (-)');
    expect(output).toContain('give the arguments inline or with --args-file');
    expect(output).not.toContain('Run this MCP tool call?');
  }, 40_000);

  it('typed on the terminal with -: one line on stderr says to type JSON and end with Ctrl-D, then the call runs', async () => {
    const screen = await cliInTerminal(['--config', config, 'call', 'notes', 'search_notes', '-'], {
      cwd: home,
      env: { HOME: home },
      question: 'Type the tool arguments as JSON, then press Ctrl-D at the start of a line.',
      // Ctrl-D at the start of a line: the end of the terminal's input.
      answer: '{"query": "coffee"}\n\x04',
    });
    expect(screen).toContain('#2 Groceries: Coffee, oat milk, rice.');
  }, 40_000);

  it('reads them from a file with --args-file', async () => {
    const file = join(home, 'args.json');
    writeFileSync(file, '{"query": "standup"}');
    const run = await cli(['call', 'notes', 'search_notes', '--args-file', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('#1 Standup');
  });

  it('says which source is not valid JSON', async () => {
    const run = await cli(['call', 'notes', 'search_notes', '-'], '{query: coffee}');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/The tool arguments on stdin are not valid JSON/);
  });

  it('refuses an --args-file over 16 MiB in words a person reads, without reading it', async () => {
    const huge = join(home, 'huge-args.json');
    writeFileSync(huge, '');
    truncateSync(huge, 16 * 1024 * 1024 + 1);
    const run = await cli(['call', 'notes', 'search_notes', '--args-file', huge]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: --args-file ${huge} is 16,777,217 bytes; a tool's arguments may take at most 16 MiB: pass the tool a file's path or URL rather than its content.\n`);
  });

  it('says that the --args-file does not exist, not a raw ENOENT', async () => {
    const missing = join(home, 'no-such-args.json');
    const run = await cli(['call', 'notes', 'search_notes', '--args-file', missing]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: Cannot read the tool arguments from --args-file ${missing}: there is no such file.\n`);
  });

  it('says that an --args-file which is not a file (a FIFO) cannot be read, at once, instead of waiting for a writer', async () => {
    const fifo = join(home, 'args-fifo');
    execFileSync('mkfifo', [fifo]);
    const run = await cli(['call', 'notes', 'search_notes', '--args-file', fifo]);
    expect(run.stderr).toBe(`Error: Cannot read the tool arguments from --args-file ${fifo}: it is not a regular file.\n`);
    expect(run.code).toBe(1);
  });

  it('refuses inline arguments and a file at once', async () => {
    const run = await cli(['call', 'notes', 'search_notes', '{}', '--args-file', join(home, 'args.json')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/either inline or with --args-file, not both/);
  });
});

describe('--json on load, call and read', () => {
  it('load: the manifest under data', async () => {
    const run = await cli(['load', 'notes', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { ok: boolean; server: string; data: { tools: Array<{ name: string }> } };
    expect(report).toMatchObject({ ok: true, server: 'notes' });
    expect(report.data.tools.map((tool) => tool.name)).toContain('search_notes');
  });

  it('call: the text and the structured content', async () => {
    const run = await cli(['call', 'notes', 'search_notes', '{"query": "rice"}', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, server: 'notes', data: { count: 1 } });
  });

  it('read: the resource text', async () => {
    const run = await cli(['read', 'notes', 'notes://all', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).text).toContain('Standup');
  });

  it('a failure is JSON too, on stdout, with exit 1', async () => {
    const run = await cli(['load', 'missing', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      server: 'missing',
      error: { code: 'CONFIG_ERROR', hint: expect.stringMatching(/`uvx-not-installed-here` is installed/) },
    });
  });

  it('call arguments that cannot be read fail in the same shape, naming the server', async () => {
    const run = await cli(['call', 'notes', 'search_notes', '{query: coffee}', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      server: 'notes',
      error: { code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/^The tool arguments are not valid JSON/) },
    });
  });
});

describe('errors worded for a person', () => {
  it('says what failed, why and what to do, without the instructions meant for a model', async () => {
    const run = await cli(['call', 'missing', 'anything']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: could not connect to "missing": command "uvx-not-installed-here" was not found/m);
    expect(run.stderr).toMatch(/^Hint: check that `uvx-not-installed-here` is installed and on PATH, or fix "command" in .*mcp\.json$/m);
    expect(run.stderr).not.toMatch(/load_mcp|tell the user/);
  });

  it('a server whose command exits at start: its exit code, its stderr and that its entry needs fixing', async () => {
    const run = await cli(['call', 'crashing', 'anything']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'Error: could not connect to "crashing": its process exited at start with code 2\n' +
        'Last lines the server wrote to stderr:\n' +
        '  notes-server: NOTES_DIR is not set\n' +
        'Hint: its command fails at start, and trying again will likely fail the same way until that is fixed: check "command", "args" or "env" in ',
    );
  });

  it('a server killed by SIGKILL while connecting: the signal, and that trying again may help (not that its entry needs fixing)', async () => {
    const killedConfig = join(home, 'killed.json');
    writeFileSync(killedConfig, JSON.stringify({ mcpServers: { killed: stdioFixture('--mode', 'killed-on-initialize') } }));
    const run = await runCli(['--config', killedConfig, 'call', 'killed', 'anything'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: could not connect to "killed": its process was ended by SIGKILL while connecting$/m);
    expect(run.stderr).toMatch(/^Hint: a signal from outside ended its process \(a kill by hand, or the system running out of memory\), not its command: trying again may help/m);
    expect(run.stderr).not.toContain('will not help');
  });

  it('a server that exits at start after long stderr lines: still its code and hint, though the model\'s text of it was cut to the budget', async () => {
    const loudConfig = join(home, 'loud.json');
    const loud = "for (let i = 0; i < 40; i++) process.stderr.write('x'.repeat(5000) + '\\n'); process.exit(2)";
    writeFileSync(loudConfig, JSON.stringify({ mcpServers: { loud: { command: process.execPath, args: ['-e', loud] } } }));
    const run = await runCli(['--config', loudConfig, 'call', 'loud', 'anything', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout);
    expect(answer.code).toBe('CONNECT_FAILED');
    expect(answer.error.message).toMatch(/^could not connect to "loud": its process exited at start with code 2/);
    expect(answer.error.hint).toMatch(/^its command fails at start/);
  });

  it('arguments and environment too large to start a process: said in words, a config error, and what to shorten', async () => {
    const bigConfig = join(home, 'big-env.json');
    // Over Linux's 128 KB for one value; a value, never printed.
    writeFileSync(bigConfig, JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [NOTES_SERVER], env: { BLOB: 'x'.repeat(200_000) } } } }));
    const run = await runCli(['--config', bigConfig, 'call', 'big', 'anything', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout);
    expect(answer.code).toBe('CONFIG_ERROR');
    expect(answer.error.message).toContain('the system refused to start it: its "args" and "env" are too large (E2BIG;');
    expect(answer.error.hint).toMatch(/^shorten "args" or "env" in .*big-env\.json$/);
    expect(run.stdout).not.toContain('xxxxxxxxxx');
  });

  it('a "cwd" that does not exist: names the folder and the field, not the command, which is installed', async () => {
    const missingFolder = join(home, 'no-such-folder');
    const own = join(home, 'nofolder.json');
    writeFileSync(own, JSON.stringify({ mcpServers: { nofolder: { command: process.execPath, args: [NOTES_SERVER], cwd: missingFolder } } }));
    const run = await runCli(['--config', own, 'call', 'nofolder', 'anything', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout);
    expect(answer.code).toBe('CONFIG_ERROR');
    expect(answer.error.message).toContain(`the working folder "${missingFolder}" does not exist or is not a folder (field "cwd")`);
    expect(answer.error.hint).toMatch(/^fix the entry "nofolder" in .*nofolder\.json$/);
    expect(run.stdout).not.toMatch(/ENOENT|is installed/);
  });

  it('an unknown tool: the server\'s tools, and the command that shows their arguments, not the loader tools that would', async () => {
    const run = await cli(['call', 'notes', 'reindex']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error: MCP server "notes" has no tool "reindex". Its tools: add_note, search_notes, enable_archive, server_info.\n' +
        'Hint: `mcp-statechart load notes` shows each tool with its arguments\n',
    );
    const json = JSON.parse((await cli(['call', 'notes', 'reindex', '--json'])).stdout);
    expect(json).toMatchObject({ ok: false, code: 'FAILED', error: { hint: '`mcp-statechart load notes` shows each tool with its arguments' } });
    expect(json.error.message).not.toMatch(/load_mcp|search_mcp_tools/);
  });

  it('arguments the tool refuses (invalid params): the server\'s words, and the command that shows the arguments', async () => {
    const run = await cli(['call', 'notes', 'search_notes', '{"query": 5}']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: Input validation error: Invalid arguments for tool search_notes: query: /);
    expect(run.stderr).toMatch(/\nHint: `mcp-statechart load notes` shows each tool with its arguments\n$/);
    const json = JSON.parse((await cli(['call', 'notes', 'search_notes', '{"query": 5}', '--json'])).stdout);
    expect(json).toMatchObject({ ok: false, code: 'TOOL_ERROR', error: { hint: '`mcp-statechart load notes` shows each tool with its arguments' } });
  });

  it('a 2026-07-28 tool that asks for a form: the server\'s words, and that a host through serve can answer it, not the options of a library', async () => {
    const run = await cli(['call', 'modern', 'ask-name']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: MCP server "modern" failed calling tool "ask-name": MCP error -32021: .*elicitation\/create.*the required capability$/m);
    expect(run.stderr).not.toMatch(/McpConnectionManager|handlers\./);
    expect(run.stderr).toMatch(/\nHint: the command line answers no forms, sampling or roots requests: call the tool from an MCP host through `mcp-statechart serve`/);
  });

  it('an unknown server: the configured names and where to look', async () => {
    const run = await cli(['load', 'ghost']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/there is no server named "ghost" \(configured: notes, missing, crashing, modern\)/);
    expect(run.stderr).toMatch(/Hint: run `mcp-statechart servers`/);
  });

  it('a mistyped server name: the closest configured names, and where to see them all; call and get word it as load does', async () => {
    const run = await cli(['load', 'note']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: there is no server named "note" (did you mean "notes"?)\nHint: run `mcp-statechart servers` to see every configured server\n');
    expect((await cli(['call', 'note', 'search_notes'])).stderr).toBe(run.stderr);
    expect((await cli(['get', 'note'])).stderr).toBe(run.stderr);
  });

  it('a server whose entry was skipped: why, and which file to fix, not "there is no server named"', async () => {
    const broken = join(home, 'broken.json');
    writeFileSync(broken, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [NOTES_SERVER] }, broken: { command: 'node', sampling: 'yes' } } }));
    const brokenCli = (args: string[]) => runCli(['--config', broken, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    const expected = {
      code: 'CONFIG_PROBLEMS',
      message: 'server "broken" skipped: "sampling" must be true or false',
      hint: `fix the entry "broken" in ${broken}; \`mcp-statechart servers\` lists every problem`,
    };
    const json = await brokenCli(['load', 'broken', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, code: 'CONFIG_PROBLEMS', server: 'broken', error: expected });
    const get = await brokenCli(['get', 'broken']);
    expect(get.code).toBe(1);
    expect(get.stderr).toBe(`Error: ${expected.message}\nHint: ${expected.hint}\n`);
    const call = await brokenCli(['call', 'broken', 'echo']);
    expect(call.code).toBe(1);
    expect(call.stderr).toMatch(new RegExp(`^Error: ${expected.message}$`, 'm'));
  });

  it('read of a URI the server does not have: says so, and names the resources it lists', async () => {
    const run = await cli(['read', 'notes', 'notes://no-such-note']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: server "notes" has no resource "notes://no-such-note"\nHint: it lists notes://all; `mcp-statechart load notes` shows them with their names\n');
    const json = JSON.parse((await cli(['read', 'notes', 'notes://no-such-note', '--json'])).stdout);
    expect(json).toMatchObject({ ok: false, code: 'REQUEST_FAILED', error: { hint: 'it lists notes://all; `mcp-statechart load notes` shows them with their names' } });
  });
});

describe('--verbose', () => {
  it('prints each lifecycle transition of load with its time', async () => {
    const run = await cli(['--verbose', 'load', 'notes']);
    expect(run.code).toBe(0);
    const transitions = run.stderr.split('\n').filter((line) => line.includes(' → '));
    expect(transitions[0]).toMatch(/^\[\+\d+\.\d{3}s\] notes: disconnected → connecting \(\d+ ms\)$/);
    expect(transitions[1]).toMatch(/^\[\+\d+\.\d{3}s\] notes: connecting → connected \(\d+ ms\)$/);
    // The one-shot command ends its session before it exits.
    expect(transitions[2]).toMatch(/^\[\+\d+\.\d{3}s\] notes: connected → disconnected \(\d+ ms\)$/);
  });

  it('works on call and read as well', async () => {
    for (const args of [['call', 'notes', 'search_notes', '{"query": "x"}'], ['read', 'notes', 'notes://all']]) {
      const run = await cli(['-v', ...args]);
      expect(run.stderr).toMatch(/notes: connecting → connected/);
    }
  });
});

describe('help', () => {
  it.each(['call', 'doctor', 'serve'])('%s --help lists the global flags too', async (command) => {
    const run = await cli([command, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Global Options:[\s\S]*--config <file>[\s\S]*--deny <pattern>[\s\S]*--verbose/);
  });
});

describe('load --timeout', () => {
  it('gives up on a server that never answers after that long, with code TIMEOUT and what to do', async () => {
    const silentConfig = join(home, 'silent.json');
    writeFileSync(silentConfig, JSON.stringify({ mcpServers: { silent: stdioFixture('--mode', 'never-initialize') } }));
    const run = await runCli(['--config', silentConfig, 'load', 'silent', '--timeout', '1500', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      server: 'silent',
      error: { code: 'TIMEOUT', message: '"silent" did not load within 1500 ms', hint: expect.stringContaining('--timeout') },
    });
  }, 40_000);

  it('call --timeout: a tool that does not answer in time fails with code TIMEOUT, as the codes table says, naming --timeout as the limit', async () => {
    const fixtureConfig = join(home, 'fixture.json');
    writeFileSync(fixtureConfig, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
    const run = await runCli(['--config', fixtureConfig, 'call', 'fixture', 'slow', '{"ms": 20000}', '--timeout', '1000', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    const failure = JSON.parse(run.stdout);
    expect(failure).toMatchObject({ ok: false, code: 'TIMEOUT', error: { code: 'TIMEOUT', hint: expect.stringContaining('--timeout') } });
    // The user set --timeout, not a library call's timeoutMs; progress would have restarted it.
    expect(failure.error.message).toMatch(/after 1000 ms without progress \(--timeout\)$/);
  }, 40_000);

  it('a --timeout over the 30 s connect default is the time the server gets to start, as the connect-timeout hint promises', async () => {
    // An entry "timeoutMs" bounds requests, not the start: the hint must not send people there.
    const silentConfig = join(home, 'silent-long.json');
    writeFileSync(silentConfig, JSON.stringify({ mcpServers: { silent: { ...stdioFixture('--mode', 'never-initialize'), timeoutMs: 600_000 } } }));
    const run = (args: string[]) => runCli(['--config', silentConfig, ...args, '--timeout', '31000', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });
    const [load, call] = await Promise.all([run(['load', 'silent']), run(['call', 'silent', 'anything'])]);
    expect(JSON.parse(load.stdout)).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: '"silent" did not load within 31000 ms' } });
    const callFailure = JSON.parse(call.stdout);
    // Worded for the command line: connectTimeoutMs is the library's option, which --timeout sets here.
    expect(callFailure.error.message).toMatch(/did not finish within 31000 ms$/);
    expect(callFailure.error.hint).toBe('it did not finish starting in time: give it longer with --timeout <ms>');
  }, 70_000);
});

/** `prompts <server>` and `prompt <server> <name> [name=value…]` against the fixture server over stdio. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { everythingStdio } from './support/everything.js';
import { STDIO_FIXTURE, stdioFixture } from './support/fixtures.js';
import { modernStdio } from './support/modern-server.js';

/** The demo's notes server (examples/servers/notes-server.mjs), which offers no prompts. */
const NOTES_SERVER = fileURLToPath(new URL('../examples/servers/notes-server.mjs', import.meta.url));

function fixtureHome() {
  const home = process.env.HOME!;
  mkdirSync(join(home, '.ai-zen'), { recursive: true });
  writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
  return (...args: string[]) => runCli(args, { cwd: home, env: { HOME: home }, timeoutMs: 40_000 });
}

describe('prompts', () => {
  it('lists each prompt with its arguments (required ones bare, optional ones in brackets) and how to get one', async () => {
    const cli = fixtureHome();
    const run = await cli('prompts', 'fixture');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"fixture" offers 1 prompt:');
    expect(run.stdout).toContain('  greet name=…  Asks the model to greet someone');
    expect(run.stdout).toContain('Get one with `mcp-statechart prompt fixture greet name=…`.');
  }, 50_000);
});

describe('prompt', () => {
  it('--timeout: a prompt that does not answer in time fails with code TIMEOUT, naming --timeout as the limit', async () => {
    const cli = fixtureHome();
    // --timeout bounds the load as well: 10 s leaves the fixture time to start on a busy machine.
    const run = await cli('prompt', 'fixture', 'slow', 'ms=60000', '--timeout', '10000', '--json');
    expect(run.code).toBe(1);
    const failure = JSON.parse(run.stdout);
    expect(failure).toMatchObject({ ok: false, code: 'TIMEOUT', error: { code: 'TIMEOUT' } });
    // The user set --timeout, not a library call's timeoutMs; "slow" is unlisted, yet the advice is more time, not other prompts.
    expect(failure.error.message).toMatch(/after 10000 ms \(--timeout, starting the server included\)$/);
    expect(failure.error.hint).toBe('give it more time with --timeout <ms>');
  }, 50_000);

  it('--timeout is one limit for the server\'s start and the prompt: a start that used part of it leaves the prompt the rest', async () => {
    const home = process.env.HOME!;
    mkdirSync(join(home, '.ai-zen'), { recursive: true });
    // Starting takes at least 2 s and the prompt 8 s: each fits in 9 s (with room for a busy machine), both together do not.
    const slowStart = { command: 'sh', args: ['-c', 'sleep 2; exec "$0" "$@"', process.execPath, STDIO_FIXTURE] };
    writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { fixture: slowStart } }));
    const run = await runCli(['prompt', 'fixture', 'slow', 'ms=8000', '--timeout', '9000', '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 40_000 });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: '"fixture" did not answer after 9000 ms (--timeout, starting the server included)', hint: 'give it more time with --timeout <ms>' },
    });
  }, 50_000);

  it('prints the messages of a prompt filled in with name=value arguments; --json has them whole', async () => {
    const cli = fixtureHome();
    const run = await cli('prompt', 'fixture', 'greet', 'name=Ada');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('[user] Please greet Ada.\n');
    const json = await cli('prompt', 'fixture', 'greet', 'name=Ada', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, server: 'fixture', prompt: 'greet', messages: [{ role: 'user', content: { type: 'text', text: 'Please greet Ada.' } }] });
  }, 50_000);

  it("names an embedded blob resource with its type and size (server-everything's resource-prompt), not only its URI", async () => {
    const home = process.env.HOME!;
    mkdirSync(join(home, '.ai-zen'), { recursive: true });
    writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
    const run = await runCli(['prompt', 'everything', 'resource-prompt', 'resourceType=Blob', 'resourceId=2'], { cwd: home, env: { HOME: home }, timeoutMs: 40_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\[user\] \(resource demo:\/\/resource\/dynamic\/blob\/2: text\/plain, \d+ bytes, not shown; --json has it whole\)$/m);
  }, 50_000);

  it('an argument the prompt does not declare (a misspelt one) is refused, naming the ones it takes', async () => {
    const cli = fixtureHome();
    const run = await cli('prompt', 'fixture', 'greet', 'name=Ada', 'nmae=Bob', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      error: { message: 'prompt "greet" of "fixture" has no argument nmae; it takes name', hint: '`mcp-statechart prompts fixture` shows the arguments of each prompt' },
    });
  }, 50_000);

  it('an argument written with the full-width ＝ of a Japanese input method: the refusal points at the sign', async () => {
    const cli = fixtureHome();
    const run = await cli('prompt', 'fixture', '挨拶', '名前＝太郎');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('got "名前＝太郎" (its "＝" is the full-width sign U+FF1D: type "=" instead).');
  }, 40_000);

  it('an argument not written name=value, or an unknown prompt: one JSON object with ok false and a code', async () => {
    const cli = fixtureHome();
    const bad = await cli('prompt', 'fixture', 'greet', 'Ada', '--json');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, server: 'fixture', error: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('name=value') } });
    const unknown = await cli('prompt', 'fixture', 'nope', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      ok: false,
      server: 'fixture',
      error: { message: expect.stringContaining('Unknown prompt: nope'), hint: '"fixture" offers greet; `mcp-statechart prompts fixture` shows their arguments' },
    });
  }, 80_000);

  it('a required argument left out: the server\'s answer, and the command that shows the prompt\'s arguments', async () => {
    // server-everything's args-prompt requires "city".
    const home = process.env.HOME!;
    mkdirSync(join(home, '.ai-zen'), { recursive: true });
    writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
    const run = await runCli(['prompt', 'everything', 'args-prompt'], { cwd: home, env: { HOME: home }, timeoutMs: 40_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: .*-32602.*args-prompt/);
    expect(run.stderr).toMatch(/\nHint: `mcp-statechart prompts everything` shows the arguments of args-prompt; give them as name=value\n$/);
  }, 50_000);

  it('a required argument left out, of a server built with the v2 SDK (2026-07-28): its answer, and the same hint', async () => {
    const home = process.env.HOME!;
    mkdirSync(join(home, '.ai-zen'), { recursive: true });
    writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { modern: modernStdio('--city-prompt') } }));
    const run = await runCli(['prompt', 'modern', 'forecast'], { cwd: home, env: { HOME: home }, timeoutMs: 40_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: .*-32602.*forecast/);
    expect(run.stderr).toMatch(/\nHint: `mcp-statechart prompts modern` shows the arguments of forecast; give them as name=value\n$/);
    const given = await runCli(['prompt', 'modern', 'forecast', 'city=Lyon'], { cwd: home, env: { HOME: home }, timeoutMs: 40_000 });
    expect(given.stdout).toBe('[user] the forecast for Lyon\n');
  }, 80_000);

  it('a prompt the server does not offer: besides its answer, the person is told which prompts it has, or that it has none', async () => {
    const cli = fixtureHome();
    const unknown = await cli('prompt', 'fixture', 'summarize', 'topic=coffee');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: .*Unknown prompt: summarize\nHint: "fixture" offers greet; `mcp-statechart prompts fixture` shows their arguments\n$/);

    // A server without prompts (the demo's notes server) is not asked: it declared none.
    writeFileSync(join(process.env.HOME!, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [NOTES_SERVER] } } }));
    const none = await cli('prompt', 'notes', 'summarize', 'topic=coffee');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^Error: .*the server does not offer prompts \(its capabilities lack prompts\), so it was not asked\nHint: "notes" offers no prompts\n$/);
  }, 80_000);
});

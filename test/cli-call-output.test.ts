/**
 * `call` and `read` print a result whole for a person (no model budget), `--max-bytes` when they
 * want a cap, and `--output` saves images, audio and binary resources, named from the content,
 * never over a file that is there without `--force`. Against server-everything over real stdio.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLI_COMMAND, runCli, runProcess } from './support/cli.js';
import { everythingStdio } from './support/everything.js';

/** The PNG server-everything's get-tiny-image sends, as base64, read from its source (the package has no types). */
const MCP_TINY_IMAGE = /MCP_TINY_IMAGE = "([A-Za-z0-9+/=]+)"/.exec(
  readFileSync(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js'), 'utf8'),
)![1]!;

const SPAWN_LOG_PRELOAD = pathToFileURL(fileURLToPath(new URL('./fixtures/spawn-log.mjs', import.meta.url))).href;

function everythingHome() {
  const home = process.env.HOME!;
  mkdirSync(join(home, '.ai-zen'), { recursive: true });
  writeFileSync(join(home, '.ai-zen', 'mcp.json'), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
  const cli = (...args: string[]) => runCli(args, { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });
  return { home, cli };
}

describe('call prints the whole result', () => {
  it('a 40,000-character text comes out whole, with no cut note (the model budget is 25,000)', async () => {
    const { cli } = everythingHome();
    const message = 'x'.repeat(40_000);
    const run = await cli('call', 'everything', 'echo', JSON.stringify({ message }));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Echo: ${message}\n`);
    expect(run.stderr).not.toContain('Cut');
  }, 70_000);

  it('--max-bytes cuts the printed text at that many bytes, never inside a character, and says so on stderr', async () => {
    const { cli } = everythingHome();
    const run = await cli('call', 'everything', 'echo', '{"message":"héllo"}', '--max-bytes', '9');
    expect(run.code).toBe(0);
    // "Echo: hé" is 9 bytes: é takes two.
    expect(run.stdout).toBe('Echo: hé\n');
    expect(run.stderr).toContain('[Cut: printed 9 of 12 bytes (--max-bytes 9).]');
  }, 70_000);
});

describe('--output saves what cannot be printed', () => {
  it('an image is named in its place on stdout and saved, byte for byte, in the folder given', async () => {
    const { home, cli } = everythingHome();
    const run = await cli('call', 'everything', 'get-tiny-image', '--output', 'images/');
    expect(run.code).toBe(0);
    const saved = join('images', 'image-1.png');
    expect(run.stdout).toBe(
      `Here's the image you requested:\n[image: image/png, 4033 bytes, saved to ${saved}]\nThe image above is the MCP logo.\n`,
    );
    expect(readFileSync(join(home, saved)).equals(Buffer.from(MCP_TINY_IMAGE, 'base64'))).toBe(true);
  }, 70_000);

  it('without --output the image is described and the way to save it is named; base64 is never printed', async () => {
    const { cli } = everythingHome();
    const run = await cli('call', 'everything', 'get-tiny-image');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('[image: image/png, 4033 bytes, not shown: save it with --output <file|folder>]');
    expect(run.stdout).not.toContain(MCP_TINY_IMAGE.slice(0, 100));
  }, 70_000);

  it('a file that is there is not replaced without --force (exit 1, OUTPUT_EXISTS), and is with it', async () => {
    const { home, cli } = everythingHome();
    writeFileSync(join(home, 'logo.png'), 'mine');
    const refused = await cli('call', 'everything', 'get-tiny-image', '--output', 'logo.png', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, server: 'everything', error: { code: 'OUTPUT_EXISTS', hint: expect.stringContaining('--force') } });
    expect(readFileSync(join(home, 'logo.png'), 'utf8')).toBe('mine');
    const forced = await cli('call', 'everything', 'get-tiny-image', '--output', 'logo.png', '--force', '--json');
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ ok: true, saved: [{ file: 'logo.png', mimeType: 'image/png', bytes: 4033 }] });
    expect(readFileSync(join(home, 'logo.png')).equals(Buffer.from(MCP_TINY_IMAGE, 'base64'))).toBe(true);
  }, 100_000);

  it('a file that is there is refused before the server is even started: a tool with side effects does not run for a result that could not be saved', async () => {
    const { home } = everythingHome();
    const spawnLog = join(home, 'spawned');
    const everything = everythingStdio();
    writeFileSync(
      join(home, '.ai-zen', 'mcp.json'),
      JSON.stringify({ mcpServers: { everything: { ...everything, args: ['--import', SPAWN_LOG_PRELOAD, ...everything.args!], env: { SPAWN_LOG: spawnLog } } } }),
    );
    writeFileSync(join(home, 'logo.png'), 'mine');
    const refused = await runCli(['call', 'everything', 'get-tiny-image', '--output', 'logo.png'], { cwd: home, env: { HOME: home }, timeoutMs: 60_000 });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('nothing was run: --output logo.png is already there');
    expect(refused.stderr).toContain('--force');
    expect(existsSync(spawnLog)).toBe(false);
    expect(readFileSync(join(home, 'logo.png'), 'utf8')).toBe('mine');
  }, 70_000);

  it('--force replaces a link planted at the name given in a shared folder, never writing the server\'s bytes where it points', async () => {
    const { home, cli } = everythingHome();
    mkdirSync(join(home, 'shared'));
    writeFileSync(join(home, 'notes.txt'), 'mine');
    symlinkSync(join(home, 'notes.txt'), join(home, 'shared', 'image-1.png'));
    const forced = await cli('call', 'everything', 'get-tiny-image', '--output', 'shared/', '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(home, 'notes.txt'), 'utf8')).toBe('mine');
    expect(lstatSync(join(home, 'shared', 'image-1.png')).isFile()).toBe(true);
    expect(readFileSync(join(home, 'shared', 'image-1.png')).equals(Buffer.from(MCP_TINY_IMAGE, 'base64'))).toBe(true);
    expect(readdirSync(join(home, 'shared'))).toEqual(['image-1.png']);
  }, 70_000);

  it('a result of more images than the process may open files at once is saved whole, one file at a time', async () => {
    const { home, cli } = everythingHome();
    const server = fileURLToPath(new URL('./fixtures/big-image-server.mjs', import.meta.url));
    expect((await cli('add', 'images', '--', process.execPath, server)).code).toBe(0);
    // Under util-linux prlimit: 1,024 descriptors at most, as a container may give (several servers' results reach 200,000 images in 10 MiB).
    const run = await runProcess('prlimit', ['--nofile=1024:1024', CLI_COMMAND.command, ...CLI_COMMAND.args, 'call', 'images', 'image', '{"count": 3000}', '--output', 'out/', '--max-files', '3000'], {
      cwd: home,
      env: { HOME: home },
      timeoutMs: 60_000,
    });
    expect(run.stderr).not.toMatch(/EMFILE/);
    expect(run.code).toBe(0);
    expect(readdirSync(join(home, 'out'))).toHaveLength(3000);
  }, 90_000);

  it('a result of more files than --max-files (100 unless given) saves none, saying how many and the flag; --max-files raises the cap', async () => {
    const { home, cli } = everythingHome();
    const server = fileURLToPath(new URL('./fixtures/big-image-server.mjs', import.meta.url));
    expect((await cli('add', 'images', '--', process.execPath, server)).code).toBe(0);
    const refused = await cli('call', 'images', 'image', '{"count": 101}', '--output', 'out/', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      ok: false,
      code: 'OUTPUT_TOO_MANY',
      error: { message: 'not saved: the result has 101 files to save, more than --max-files 100', hint: 'pass --max-files 101 to save them all' },
    });
    expect(existsSync(join(home, 'out'))).toBe(false);
    const raised = await cli('call', 'images', 'image', '{"count": 101}', '--output', 'out/', '--max-files', '101');
    expect(raised.code).toBe(0);
    expect(readdirSync(join(home, 'out'))).toHaveLength(101);
    expect((await cli('call', 'images', 'image', '{"count": 1}', '--max-files', '5')).stderr).toContain('--max-files goes with --output');
  }, 90_000);

  it('an embedded binary resource is saved under the last segment of its URI, never a path the server chose', async () => {
    const { home, cli } = everythingHome();
    const data = `data:text/plain;base64,${Buffer.from('hello, gzip').toString('base64')}`;
    const run = await cli('call', 'everything', 'gzip-file-as-resource', JSON.stringify({ name: '../../escape.gz', data, outputType: 'resource' }), '--output', 'out/');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`application/gzip, `);
    expect(readdirSync(join(home, 'out'))).toEqual(['escape.gz']);
    expect(readdirSync(home)).not.toContain('escape.gz');
    const { gunzipSync } = await import('node:zlib');
    expect(gunzipSync(readFileSync(join(home, 'out', 'escape.gz'))).toString()).toBe('hello, gzip');
  }, 70_000);
});

describe('read', () => {
  it('a blob that is text (text/plain, valid UTF-8) is printed as that text, as the loader gives it, not named as binary', async () => {
    const { cli } = everythingHome();
    const run = await cli('read', 'everything', 'demo://resource/dynamic/blob/1');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Resource 1: This is a base64 blob created at /);
    expect(run.stdout).not.toContain('not shown');
  }, 70_000);

  it('a binary resource is saved to the file --output names; --json lists it', async () => {
    const { home, cli } = everythingHome();
    const run = await cli('read', 'everything', 'demo://resource/dynamic/blob/1', '--output', 'blob.txt', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, saved: [{ file: 'blob.txt', mimeType: 'text/plain' }] });
    expect(readFileSync(join(home, 'blob.txt'), 'utf8')).toMatch(/^Resource 1: This is a base64 blob created at /);
  }, 70_000);
});

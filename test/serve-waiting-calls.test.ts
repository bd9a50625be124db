/**
 * How many calls of a 2026-07-28 host serve holds: calls that need nothing from the host are not
 * limited (a host with 40 calls in flight gets 40 results), and at most MAX_WAITING_CALLS wait
 * for the host's input at once, here serve's approval form (the next one that needs input is
 * stopped with a clear error; the ones waiting still finish when the host answers). Real processes: serve (the CLI) and the
 * modern-only fixture, driven by a host on the v2 client pinned to 2026-07-28.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WAITING_CALLS } from '../src/serve/host-rounds.js';
import { CLI_COMMAND } from './support/cli.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

/** The v2 SDK's stdio transport probes in a sibling process; a subclass probes on its own pipe, so serve starts once. */
class OneProcessStdioTransport extends StdioClientTransport {}

let home: string;
let config: string;
const hosts: Client[] = [];
/** The person at the host answers forms only once let: until then every form waits. */
let letAnswer: () => void = () => {};
const answering = new Promise<void>((resolve) => (letAnswer = resolve));
let formsAsked = 0;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-waiting-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { modern: { command: process.execPath, args: [MODERN_SERVER] } } }));
});

afterAll(async () => {
  letAnswer();
  await Promise.all(hosts.map((host) => host.close()));
  rmSync(home, { recursive: true, force: true });
});

/** A host on serve with these flags, the modern server loaded; it answers forms (serve's approval form) when let. */
async function hostOnServe(...flags: string[]): Promise<Client> {
  const host = new Client({ name: 'busy-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } });
  hosts.push(host);
  host.setRequestHandler('elicitation/create', async () => {
    formsAsked += 1;
    await answering;
    return { action: 'accept', content: { always: false } };
  });
  await host.connect(
    new OneProcessStdioTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, '--config', config, 'serve', ...flags],
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    }),
  );
  const loaded = await host.callTool({ name: 'load_mcp', arguments: { server: 'modern' } }, { timeout: 60_000 });
  expect(loaded.isError).not.toBe(true);
  return host;
}

const call = (host: Client, tool: string, args: Record<string, unknown>) =>
  host.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool, arguments: args } }, { timeout: 60_000 });
const textOf = (result: Awaited<ReturnType<typeof call>>) => (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');

describe('serve with a 2026-07-28 host', () => {
  it(`answers more than ${MAX_WAITING_CALLS} calls in flight at once when none needs the host`, async () => {
    // No approval form: nothing here waits for the host.
    const host = await hostOnServe('--approve', 'never');
    const calls = Array.from({ length: MAX_WAITING_CALLS + 8 }, () => call(host, 'progress', { steps: 2, intervalMs: 200 }));
    const results = await Promise.all(calls);
    expect(results.map(textOf)).toEqual(Array.from({ length: MAX_WAITING_CALLS + 8 }, () => 'done in 2 steps'));
  }, 60_000);

  it(`holds ${MAX_WAITING_CALLS} calls waiting for the host's input, stops the next that needs it, and finishes the waiting ones`, async () => {
    // Every call of a tool that may change something waits for serve's approval form.
    const host = await hostOnServe('--approve', 'always');
    const waiting = Array.from({ length: MAX_WAITING_CALLS }, (_, index) => call(host, 'echo', { text: `call ${index}` }));
    await expect.poll(() => formsAsked, { timeout: 30_000 }).toBe(MAX_WAITING_CALLS);
    await expect(call(host, 'echo', { text: 'one too many' })).rejects.toThrow(`${MAX_WAITING_CALLS} calls already wait for the host's input`);
    letAnswer();
    const results = await Promise.all(waiting);
    expect(results.map(textOf)).toEqual(Array.from({ length: MAX_WAITING_CALLS }, (_, index) => `call ${index}`));
  }, 60_000);
});

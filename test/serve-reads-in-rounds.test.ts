/**
 * A 2026-07-28 host's `prompts/get` and `resources/read` through `serve` run in input rounds, as
 * its tool calls do (basic/patterns/mrtr.mdx names all three): what the downstream server asks
 * while answering (here a form for a name) goes back as `input_required` on the host's own
 * request, and its retry with the answer gets the prompt or the contents. Real processes: serve
 * over stdio, the modern fixture (`--asks-in-reads`) behind it, a v2 host pinned to 2026-07-28.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

/** The v2 SDK's stdio transport probes in a sibling process; a subclass probes on its own pipe, so serve starts once. */
class OneProcessStdioTransport extends StdioClientTransport {}

let home: string;
let host: Client;
const asked: string[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-reads-in-rounds-'));
  const config = join(home, 'reads.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [MODERN_SERVER, '--asks-in-reads'], protocol: 'modern' } } }));
  host = new Client({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } });
  host.setRequestHandler('elicitation/create', async ({ params }) => {
    asked.push(params.message);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  await host.connect(
    new OneProcessStdioTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, '--config', config, 'serve'],
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    }),
  );
  expect(host.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  const loaded = await host.callTool({ name: 'load_mcp', arguments: { server: 'notes' } }, { timeout: 30_000 });
  expect(loaded.isError).not.toBe(true);
}, 60_000);

afterAll(async () => {
  await host?.close();
  rmSync(home, { recursive: true, force: true });
});

const textsOf = (parts: Array<{ text?: string }>) => parts.map((part) => part.text ?? '').join('');

describe("a 2026-07-28 host's prompt get and resource read, when the downstream server asks the host something first", () => {
  it('prompts/get: the server\'s form reaches the host on the prompt get, and the retry gets the prompt', async () => {
    asked.length = 0;
    const prompt = await host.getPrompt({ name: 'notes/greeting' }, { timeout: 30_000 });
    expect(prompt.messages.map((message) => ('text' in message.content ? message.content.text : ''))).toEqual(['greet Ada']);
    expect(asked).toEqual([expect.stringMatching(/^MCP server "notes" asks \(relayed by mcp-statechart serve\):\nYour name, for the greeting\?/)]);
  }, 60_000);

  it('resources/read: the server\'s form reaches the host on the read, and the retry gets the contents under serve\'s URI', async () => {
    asked.length = 0;
    const read = await host.readResource({ uri: 'mcp-statechart://notes/note://signed' }, { timeout: 30_000 });
    expect(read.contents).toEqual([expect.objectContaining({ uri: 'mcp-statechart://notes/note://signed', text: 'signed by Ada' })]);
    expect(asked).toEqual([expect.stringMatching(/^MCP server "notes" asks \(relayed by mcp-statechart serve\):\nYour name, to sign the note\?/)]);
  }, 60_000);

  it('read_mcp_resource (a tool call) takes its rounds the same way', async () => {
    asked.length = 0;
    const result = await host.callTool({ name: 'read_mcp_resource', arguments: { server: 'notes', uri: 'note://signed' } }, { timeout: 30_000 });
    expect(textsOf(result.content as Array<{ text?: string }>)).toContain('signed by Ada');
    expect(asked).toHaveLength(1);
  }, 60_000);
});

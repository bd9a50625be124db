/**
 * `serve` speaks both eras of MCP to its host: a host on the v2 client pinned to 2026-07-28
 * (server/discover, a `_meta` envelope on every request, no session) and a host on the v1 client
 * (the 2025 `initialize` handshake) get the same loader tools, reach the same servers — the
 * modern-only fixture (v2 SDK, `legacy: 'reject'`) and legacy server-everything — and see
 * progress and cancel pass through. Real processes: serve (the CLI), both servers.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { everythingBehindRelay, everythingConfigHome, receivedByServer } from './support/everything.js';
import { SERVE_APPROVAL_TITLE } from '../src/serve/host-requests.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

let setup: ReturnType<typeof everythingConfigHome>;
let config: string;
beforeAll(() => {
  setup = everythingConfigHome('mcp-serve-eras-');
  config = join(setup.home, 'eras.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { modern: { command: process.execPath, args: [MODERN_SERVER] }, everything: everythingBehindRelay(setup.received) } }),
  );
});
afterAll(() => setup.remove());

const serveParameters = () => ({
  command: CLI_COMMAND.command,
  args: [...CLI_COMMAND.args, '--config', config, 'serve'],
  env: { HOME: setup.home, PATH: process.env.PATH ?? '' },
  stderr: 'ignore' as const,
});

/** The v2 SDK's stdio transport probes in a sibling process; a subclass probes on its own pipe, so serve starts once. */
class OneProcessStdioTransport extends StdioClientTransport {}

interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number }) => void;
}

/** What the scenarios need of a host, whichever SDK it is written with. */
interface EraHost {
  protocolVersion(): string | undefined;
  toolNames(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

const textOf = (content: unknown) => (Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '');

/** A person at the host: approves serve's forms, gives a name to other forms, and has one project folder open. */
interface HostUser {
  forms: string[];
  answer(message: string): { action: 'accept'; content: Record<string, string | boolean> };
  roots: Array<{ uri: string; name: string }>;
  prompts: string[];
  sample(prompt: string): { role: 'assistant'; model: string; content: { type: 'text'; text: string } };
}

function hostUser(): HostUser {
  const forms: string[] = [];
  return {
    forms,
    answer: (message) => {
      forms.push(message);
      const content: Record<string, string | boolean> = message.startsWith(SERVE_APPROVAL_TITLE) ? { always: false } : { name: 'Host User' };
      return { action: 'accept', content };
    },
    roots: [{ uri: 'file:///host/project', name: 'project' }],
    prompts: [],
    sample(prompt) {
      this.prompts.push(prompt);
      return { role: 'assistant', model: 'host-model', content: { type: 'text', text: 'the host model answers' } };
    },
  };
}

const ASKABLE = { elicitation: { form: {} }, roots: {}, sampling: {} };

async function modernHost(user?: HostUser): Promise<EraHost> {
  const client = new ModernClient(
    { name: 'modern-host', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...(user ? { capabilities: ASKABLE } : {}) },
  );
  if (user) {
    client.setRequestHandler('elicitation/create', async (request) => user.answer(request.params.message));
    client.setRequestHandler('roots/list', async () => ({ roots: user.roots }));
    client.setRequestHandler('sampling/createMessage', async (request) => user.sample(JSON.stringify(request.params.messages)));
  }
  await client.connect(new OneProcessStdioTransport(serveParameters()));
  return {
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name, args, options) => {
      const result = await client.callTool({ name, arguments: args }, { ...options, timeout: 30_000 });
      return { text: textOf(result.content), isError: result.isError === true };
    },
    close: () => client.close(),
  };
}

async function legacyHost(user?: HostUser): Promise<EraHost> {
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, user ? { capabilities: ASKABLE } : {});
  if (user) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => user.answer(request.params.message));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: user.roots }));
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => user.sample(JSON.stringify(request.params.messages)));
  }
  await client.connect(new LegacyStdioTransport(serveParameters()));
  return {
    // The v1 client speaks only the 2025 handshake: nothing to ask it.
    protocolVersion: () => undefined,
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name, args, options) => {
      const result = await client.callTool({ name, arguments: args }, undefined, { ...options, timeout: 30_000 });
      return { text: textOf(result.content), isError: result.isError === true };
    },
    close: () => client.close(),
  };
}

const callOn = (host: EraHost, server: string, tool: string, args: Record<string, unknown>, options?: CallOptions) =>
  host.call('call_mcp_tool', { server, tool, arguments: args }, options);

const cancelsReceived = () => receivedByServer(setup.received).filter((line) => line.startsWith('notifications/cancelled')).length;

describe.each([
  { era: 'a 2026-07-28 host (v2 client, pinned)', start: modernHost, version: '2026-07-28' },
  { era: 'a 2025 host (v1 client, initialize)', start: legacyHost, version: undefined },
])('serve, driven by $era', ({ start, version }) => {
  let host: EraHost;
  beforeAll(async () => {
    host = await start();
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  it('offers the loader tools, on the era the host asked for', async () => {
    if (version !== undefined) expect(host.protocolVersion()).toBe(version);
    expect(await host.toolNames()).toEqual(expect.arrayContaining(['load_mcp', 'call_mcp_tool', 'read_mcp_resource']));
  });

  it('reaches the modern-only server and legacy server-everything', async () => {
    expect(await host.call('load_mcp', { server: 'modern' })).toMatchObject({ isError: false });
    expect(await callOn(host, 'modern', 'echo', { text: 'to the modern server' })).toEqual({ isError: false, text: 'to the modern server' });
    expect(await host.call('load_mcp', { server: 'everything' })).toMatchObject({ isError: false });
    expect((await callOn(host, 'everything', 'echo', { message: 'to the legacy server' })).text).toContain('to the legacy server');
  }, 60_000);

  it("returns the final result of a modern server's task (the Tasks extension, followed by serve)", async () => {
    expect(await host.call('load_mcp', { server: 'modern' })).toMatchObject({ isError: false });
    expect(await callOn(host, 'modern', 'task-steps', { polls: 2, pollIntervalMs: 1 })).toEqual({ isError: false, text: 'done after 2 polls' });
  }, 60_000);

  it("passes downstream progress up under the host's progressToken", async () => {
    const progress: number[] = [];
    const result = await callOn(host, 'everything', 'trigger-long-running-operation', { duration: 1, steps: 4 }, {
      onprogress: ({ progress: value }) => progress.push(value),
    });
    expect(result.text).toContain('Long running operation completed');
    // steps − 1 notifications at least, in order (see NOTES on server-everything).
    expect(progress.slice(0, 3)).toEqual([1, 2, 3]);
  }, 30_000);

  it("passes the host's cancel down: server-everything receives notifications/cancelled", async () => {
    const before = cancelsReceived();
    const controller = new AbortController();
    let first: () => void = () => {};
    const firstProgress = new Promise<void>((resolve) => (first = resolve));
    const call = callOn(host, 'everything', 'trigger-long-running-operation', { duration: 10, steps: 20 }, {
      signal: controller.signal,
      onprogress: () => first(),
    });
    await firstProgress;
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(cancelsReceived, { timeout: 5_000 }).toBe(before + 1);
    expect((await callOn(host, 'everything', 'echo', { message: 'after cancel' })).text).toContain('after cancel');
  }, 30_000);
});

describe.each([
  { era: 'a 2026-07-28 host (input_required on its pending call)', start: modernHost },
  { era: 'a 2025 host (requests sent to it)', start: legacyHost },
])('serve asks $era', ({ start }) => {
  let host: EraHost;
  let user: HostUser;
  beforeAll(async () => {
    user = hostUser();
    host = await start(user);
    for (const server of ['modern', 'everything']) expect(await host.call('load_mcp', { server })).toMatchObject({ isError: false });
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  it('for approval by elicitation: the form names server and tool, and the approved call runs', async () => {
    user.forms.length = 0;
    expect(await callOn(host, 'modern', 'echo', { text: 'approved' })).toEqual({ isError: false, text: 'approved' });
    expect(user.forms).toHaveLength(1);
    expect(user.forms[0]!.startsWith(`${SERVE_APPROVAL_TITLE}\n`)).toBe(true);
    expect(user.forms[0]).toMatch(/server: modern[\s\S]*tool: echo/);
  }, 30_000);

  it("for the modern server's multi round-trip elicitation, named as that server's", async () => {
    user.forms.length = 0;
    expect(await callOn(host, 'modern', 'ask-name', {})).toEqual({ isError: false, text: 'hello Host User' });
    expect(user.forms).toEqual([expect.stringMatching(/^MCP server "modern" asks \(relayed by mcp-statechart serve\):\nYour name\?/)]);
  }, 30_000);

  it("for server-everything's elicitation request (a 2025 server→client request)", async () => {
    user.forms.length = 0;
    expect((await callOn(host, 'everything', 'trigger-elicitation-request', {})).text).toContain('Host User');
    // After serve's own approval form (the tool is not read-only), the server's form.
    expect(user.forms).toEqual([expect.stringContaining(SERVE_APPROVAL_TITLE), expect.stringMatching(/^MCP server "everything" asks[\s\S]*Please provide inputs/)]);
  }, 30_000);

  it("for sampling, from server-everything's sampling request", async () => {
    expect((await callOn(host, 'everything', 'trigger-sampling-request', { prompt: 'haiku', maxTokens: 20 })).text).toContain('the host model answers');
    expect(user.prompts).toEqual([expect.stringContaining('haiku')]);
  }, 30_000);

  it('for its roots, from either server', async () => {
    expect((await callOn(host, 'modern', 'list-roots', {})).text).toBe('file:///host/project');
    expect((await callOn(host, 'everything', 'get-roots-list', {})).text).toContain('file:///host/project');
  }, 30_000);
});

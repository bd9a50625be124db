/**
 * `serve --http` relays what a call needs from its caller's host: serve's own approval form
 * (`--approve`), a downstream server's elicitation, sampling and roots requests. A 2026-07-28
 * host gets them as `input_required` on its pending call and answers in its retry; a 2025 host
 * gets them as requests on the SSE stream of its `tools/call` POST and POSTs its answers back,
 * and a URL-mode page's completion notice on that same stream.
 * The call waits on the replica that runs it: a modern host's retry that a balancer sends to
 * another replica gets a clear error at once (docs/deploy.md). Real processes: serve --http, the
 * modern fixture, the legacy host-features fixture, server-everything.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitationCompleteNotificationSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { everythingStdio } from './support/everything.js';
import { HOST_FEATURE_SERVERS } from './support/host-feature-servers.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';
import { SERVE_APPROVAL_TITLE } from '../src/serve/host-requests.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

let home: string;
let replicaA: HttpServe;
let replicaB: HttpServe;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-http-relay-'));
  const config = join(home, 'mcp.json');
  const keyFile = join(home, 'session-keys.txt');
  writeFileSync(config, JSON.stringify({ mcpServers: { modern: { command: process.execPath, args: [MODERN_SERVER, '--asks-in-reads'] }, everything: everythingStdio(), legacy: HOST_FEATURE_SERVERS[1]!.config } }));
  writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`);
  const flags = ['--config', config, '--approve', 'destructive'];
  [replicaA, replicaB] = await Promise.all([startHttpServe(home, flags, ['--session-key-file', keyFile]), startHttpServe(home, flags, ['--session-key-file', keyFile])]);
}, 90_000);

afterAll(async () => {
  await Promise.all([replicaA?.stop(), replicaB?.stop()]);
  rmSync(home, { recursive: true, force: true });
}, 60_000);

/** A person at the host: approves serve's forms, gives a name to other forms, and has one project folder open. */
function hostUser() {
  const forms: string[] = [];
  const prompts: string[] = [];
  return {
    forms,
    prompts,
    roots: [{ uri: 'file:///host/project', name: 'project' }],
    answer(message: string) {
      forms.push(message);
      const content: Record<string, string> = message.startsWith(SERVE_APPROVAL_TITLE) ? {} : { name: 'Host User' };
      return { action: 'accept' as const, content };
    },
    sample(prompt: string) {
      prompts.push(prompt);
      return { role: 'assistant' as const, model: 'host-model', content: { type: 'text' as const, text: 'the host model answers' } };
    },
  };
}
type HostUser = ReturnType<typeof hostUser>;

const ASKABLE = { elicitation: { form: {} }, roots: {}, sampling: {} };
const textOf = (content: unknown) => (Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '');

interface Host {
  load(server: string): Promise<boolean>;
  call(server: string, tool: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  /** The texts of a prompt's messages, got through serve (`server/prompt`). */
  prompt(name: string): Promise<string[]>;
  /** The texts of a resource's contents, read through serve (`mcp-statechart://server/uri`). */
  read(uri: string): Promise<string[]>;
  close(): Promise<void>;
}

const messageTexts = (prompt: { messages: Array<{ content: unknown }> }) =>
  prompt.messages.map(({ content }) => (typeof content === 'object' && content !== null && 'text' in content ? String(content.text) : ''));
const contentTexts = (read: { contents: Array<Record<string, unknown>> }) => read.contents.map((content) => String(content.text ?? ''));

async function modernHost(url: string, user: HostUser, fetch?: typeof globalThis.fetch): Promise<Host> {
  const client = new ModernClient({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: ASKABLE });
  client.setRequestHandler('elicitation/create', async (request) => user.answer(request.params.message));
  client.setRequestHandler('roots/list', async () => ({ roots: user.roots }));
  client.setRequestHandler('sampling/createMessage', async (request) => user.sample(JSON.stringify(request.params.messages)));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  return {
    load: async (server) => (await client.callTool({ name: 'load_mcp', arguments: { server } })).isError !== true,
    call: async (server, tool, args) => {
      const result = await client.callTool({ name: 'call_mcp_tool', arguments: { server, tool, arguments: args } }, { timeout: 30_000 });
      return { text: textOf(result.content), isError: result.isError === true };
    },
    prompt: async (name) => messageTexts(await client.getPrompt({ name }, { timeout: 30_000 })),
    read: async (uri) => contentTexts(await client.readResource({ uri }, { timeout: 30_000 })),
    close: () => client.close(),
  };
}

async function legacyHost(url: string, user: HostUser): Promise<Host> {
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, { capabilities: ASKABLE });
  client.setRequestHandler(ElicitRequestSchema, async (request) => user.answer(request.params.message));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: user.roots }));
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => user.sample(JSON.stringify(request.params.messages)));
  await client.connect(new LegacyHttpTransport(new URL(url)));
  return {
    load: async (server) => (await client.callTool({ name: 'load_mcp', arguments: { server } })).isError !== true,
    call: async (server, tool, args) => {
      const result = await client.callTool({ name: 'call_mcp_tool', arguments: { server, tool, arguments: args } }, undefined, { timeout: 30_000 });
      return { text: textOf(result.content), isError: result.isError === true };
    },
    prompt: async (name) => messageTexts(await client.getPrompt({ name }, { timeout: 30_000 })),
    read: async (uri) => contentTexts(await client.readResource({ uri }, { timeout: 30_000 })),
    close: () => client.close(),
  };
}

describe.each([
  { era: 'a 2026-07-28 host (input_required on its call)', start: modernHost },
  { era: 'a 2025 host (requests on its POST’s SSE stream)', start: legacyHost },
])('serve --http asks $era', ({ start }) => {
  const user = hostUser();
  let host: Host;
  beforeAll(async () => {
    host = await start(replicaA.url, user);
    for (const server of ['modern', 'everything']) expect(await host.load(server)).toBe(true);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  it('for approval (--approve destructive): the form names server and tool, and the approved call runs', async () => {
    user.forms.length = 0;
    expect(await host.call('modern', 'echo', { text: 'approved' })).toEqual({ isError: false, text: 'approved' });
    expect(user.forms).toHaveLength(1);
    expect(user.forms[0]!.startsWith(`${SERVE_APPROVAL_TITLE}\n`)).toBe(true);
    expect(user.forms[0]).toMatch(/server: modern[\s\S]*tool: echo/);
    // Over HTTP no session keeps "allow always": the form does not offer it.
    expect(user.forms[0]).not.toContain('without asking again');
  }, 30_000);

  it("for the modern server's multi round-trip elicitation and server-everything's elicitation request", async () => {
    user.forms.length = 0;
    expect(await host.call('modern', 'ask-name', {})).toEqual({ isError: false, text: 'hello Host User' });
    expect((await host.call('everything', 'trigger-elicitation-request', {})).text).toContain('Host User');
    expect(user.forms.filter((form) => !form.startsWith(SERVE_APPROVAL_TITLE))).toEqual([
      expect.stringMatching(/^MCP server "modern" asks \(relayed by mcp-statechart serve\):\nYour name\?/),
      expect.stringMatching(/^MCP server "everything" asks[\s\S]*Please provide inputs/),
    ]);
  }, 30_000);

  it("for sampling, from server-everything's sampling request", async () => {
    expect((await host.call('everything', 'trigger-sampling-request', { prompt: 'haiku', maxTokens: 20 })).text).toContain('the host model answers');
    expect(user.prompts).toEqual([expect.stringContaining('haiku')]);
  }, 30_000);

  it("on a prompt get and a resource read, when the modern server asks before it answers: the form reaches the host, and the prompt and the note come back", async () => {
    user.forms.length = 0;
    expect(await host.prompt('modern/greeting')).toEqual(['greet Host User']);
    expect(await host.read('mcp-statechart://modern/note://signed')).toEqual(['signed by Host User']);
    expect(user.forms).toEqual([
      expect.stringMatching(/^MCP server "modern" asks \(relayed by mcp-statechart serve\):\nYour name, for the greeting\?/),
      expect.stringMatching(/^MCP server "modern" asks \(relayed by mcp-statechart serve\):\nYour name, to sign the note\?/),
    ]);
  }, 60_000);

  it('for its roots, when a server asks during the call (a server that asks outside any call is told none)', async () => {
    expect((await host.call('modern', 'list-roots', {})).text).toBe('file:///host/project');
  }, 30_000);
});

describe("a legacy server's page done out of band (notifications/elicitation/complete), for a 2025 host", () => {
  it("reaches the host that was sent the page, once, under serve's own id, on the SSE stream of the call's POST", async () => {
    const pages: Array<{ mode?: string; elicitationId?: string }> = [];
    const completions: string[] = [];
    const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => (pages.push(request.params), { action: 'accept' as const }));
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, ({ params }) => void completions.push(params.elicitationId));
    /** What came back on the stream of each POST that called a tool. */
    const callStreams: Array<Promise<string>> = [];
    const teeCallStreams: typeof globalThis.fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!(typeof init?.body === 'string' && init.body.includes('"tools/call"') && response.body)) return response;
      const [kept, read] = response.body.tee();
      callStreams.push(new Response(read).text());
      return new Response(kept, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
    await client.connect(new LegacyHttpTransport(new URL(replicaA.url), { fetch: teeCallStreams }));
    try {
      expect((await client.callTool({ name: 'load_mcp', arguments: { server: 'legacy' } })).isError).not.toBe(true);
      const result = await client.callTool({ name: 'call_mcp_tool', arguments: { server: 'legacy', tool: 'open-page-and-finish', arguments: {} } }, undefined, { timeout: 30_000 });
      expect(textOf(result.content)).toBe('page: done');

      const [page] = pages;
      expect(page?.mode).toBe('url');
      // serve's own id: two servers' ids cannot clash at the host, nor one server finish another's page.
      expect(page?.elicitationId).toEqual(expect.any(String));
      expect(page?.elicitationId).not.toBe('order-8');
      // The server also sends a notice for a page never asked and a second one for this page: neither goes up.
      await vi.waitFor(() => expect(completions).toHaveLength(1));
      expect(completions).toEqual([page!.elicitationId]);
      const onCallStreams = (await Promise.all(callStreams)).join('');
      expect(onCallStreams.split('notifications/elicitation/complete')).toHaveLength(2);
      expect(onCallStreams).toContain(`"elicitationId":"${page!.elicitationId}"`);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('behind a balancer that sends the retry elsewhere', () => {
  it("a 2026-07-28 host's retry on another replica gets a clear error at once, and the host's next call works", async () => {
    const user = hostUser();
    // Round-robin at its worst: every retry carrying requestState goes to the other replica.
    const elsewhere: typeof globalThis.fetch = (input, init) =>
      typeof init?.body === 'string' && init.body.includes('"requestState"') ? fetch(String(input).replace(replicaA.origin, replicaB.origin), init) : fetch(input, init);
    const host = await modernHost(replicaA.url, user, elsewhere);
    try {
      expect(await host.load('modern')).toBe(true);
      const started = Date.now();
      await expect(host.call('modern', 'echo', { text: 'approved' })).rejects.toThrow(/waits on another replica of mcp-statechart serve/);
      expect(Date.now() - started).toBeLessThan(15_000);
      // Nothing waits on replica A for it: the next call that needs no round is answered.
      expect(await host.load('modern')).toBe(true);
    } finally {
      await host.close();
    }
  }, 30_000);
});

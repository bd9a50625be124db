/**
 * What `serve` relays between downstream servers and its host beyond tool results, for a host on
 * the v2 client pinned to 2026-07-28 (and, where the host's era changes the route, a v1 host):
 * downstream log messages, on the host's own call and from the level that call asked;
 * URL-mode elicitation, declared downstream only when the host declares it. Downstream: the
 * modern-only fixture (v2 SDK, input_required) and a legacy v1 fixture (server→client requests).
 * Real processes: serve (the CLI), both servers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, LOG_LEVEL_META_KEY, type LoggingLevel } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostRequestHandlers } from '../src/serve/host-requests.js';
import type { HostPeer } from '../src/serve/host.js';
import { CLI_COMMAND } from './support/cli.js';
import { HOST_FEATURE_SERVERS } from './support/host-feature-servers.js';

const PAGE_URL = 'https://pay.example.com/checkout?order=7';
const [MODERN, LEGACY] = HOST_FEATURE_SERVERS;

let home: string;
let config: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-host-relays-'));
  config = join(home, 'relays.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { modern: MODERN!.config, legacy: LEGACY!.config } }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const serveParameters = () => ({
  command: CLI_COMMAND.command,
  args: [...CLI_COMMAND.args, '--config', config, 'serve'],
  env: { HOME: home, PATH: process.env.PATH ?? '' },
  stderr: 'ignore' as const,
});

/** The v2 SDK's stdio transport probes in a sibling process; a subclass probes on its own pipe, so serve starts once. */
class OneProcessStdioTransport extends StdioClientTransport {}

const textOf = (content: unknown) => (Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '');

interface Heard {
  logs: Array<{ level: string; logger?: string; data: unknown }>;
  elicitations: Array<{ mode?: string; url?: string; message: string; elicitationId?: string }>;
  /** The `elicitationId`s of `notifications/elicitation/complete` the host was sent. */
  completions: string[];
}

interface RelayHost {
  heard: Heard;
  /** `call_mcp_tool` on `server`; `logLevel` rides in the call's `_meta` (2026-07-28 only). */
  callOn(server: string, tool: string, logLevel?: LoggingLevel): Promise<string>;
  close(): Promise<void>;
}

/** Which elicitation modes the host declares: none, or form (with url). */
type Modes = 'none' | 'form' | 'form+url';

const elicitationOf = (modes: Modes) => (modes === 'none' ? {} : { elicitation: { form: {}, ...(modes === 'form+url' ? { url: {} } : {}) } });

async function modernHost(modes: Modes): Promise<RelayHost> {
  const heard: Heard = { logs: [], elicitations: [], completions: [] };
  const client = new ModernClient({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: elicitationOf(modes) });
  client.setNotificationHandler('notifications/message', ({ params }) => void heard.logs.push(params));
  client.setNotificationHandler('notifications/elicitation/complete', ({ params }) => void heard.completions.push(params.elicitationId));
  if (modes !== 'none') {
    client.setRequestHandler('elicitation/create', async ({ params }) => {
      heard.elicitations.push(params);
      return { action: 'accept' };
    });
  }
  await client.connect(new OneProcessStdioTransport(serveParameters()));
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return relayHost(heard, (name, args, logLevel) => client.callTool({ name, arguments: args, ...(logLevel ? { _meta: { [LOG_LEVEL_META_KEY]: logLevel } } : {}) }, { timeout: 30_000 }), () => client.close());
}

async function legacyHost(modes: Modes): Promise<RelayHost> {
  const heard: Heard = { logs: [], elicitations: [], completions: [] };
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, { capabilities: elicitationOf(modes) });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, ({ params }) => void heard.completions.push(params.elicitationId));
  if (modes !== 'none') {
    client.setRequestHandler(ElicitRequestSchema, async ({ params }) => {
      heard.elicitations.push(params);
      return { action: 'accept' };
    });
  }
  await client.connect(new LegacyStdioTransport(serveParameters()));
  return relayHost(heard, (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 }), () => client.close());
}

function relayHost(
  heard: Heard,
  call: (name: string, args: Record<string, unknown>, logLevel?: LoggingLevel) => Promise<Record<string, unknown>>,
  close: () => Promise<void>,
): RelayHost {
  const loaded = new Set<string>();
  const run = async (name: string, args: Record<string, unknown>, logLevel?: LoggingLevel) => {
    const result = await call(name, args, logLevel);
    if (result.isError === true) throw new Error(textOf(result.content));
    return textOf(result.content);
  };
  const callOn = async (server: string, tool: string, logLevel?: LoggingLevel) => {
    if (!loaded.has(server)) await run('load_mcp', { server });
    loaded.add(server);
    return run('call_mcp_tool', { server, tool, arguments: {} }, logLevel);
  };
  return {
    heard,
    callOn,
    async close() {
      await close();
    },
  };
}

let host: RelayHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

async function started(start: (modes: Modes) => Promise<RelayHost>, modes: Modes): Promise<RelayHost> {
  host = await start(modes);
  return host;
}

describe("downstream log messages, to a 2026-07-28 host: on its own call, from the level in the call's _meta", () => {
  it.each([
    { server: 'modern', era: MODERN!.era, logger: 'modern' },
    { server: 'legacy', era: LEGACY!.era, logger: 'legacy/levels' },
  ])('from the $era server', async ({ server, logger }) => {
    const relay = await started(modernHost, 'none');
    await relay.callOn(server, 'log-levels', 'debug');
    expect(relay.heard.logs).toEqual([
      { level: 'debug', logger, data: 'a debug message' },
      { level: 'warning', logger, data: 'a warning message' },
    ]);

    relay.heard.logs.length = 0;
    await relay.callOn(server, 'log-levels', 'warning');
    expect(relay.heard.logs).toEqual([{ level: 'warning', logger, data: 'a warning message' }]);

    // 2026-07-28: no level in the request, no log messages for it.
    relay.heard.logs.length = 0;
    await relay.callOn(server, 'log-levels');
    expect(relay.heard.logs).toEqual([]);
  }, 60_000);
});

describe.each([
  { hostEra: 'a 2026-07-28 host (input_required on its call)', start: modernHost },
  { hostEra: 'a 2025 host (elicitation/create sent to it)', start: legacyHost },
])('URL-mode elicitation, to $hostEra', ({ start }) => {
  it.each(HOST_FEATURE_SERVERS.map(({ era }, index) => ({ era, server: index === 0 ? 'modern' : 'legacy' })))(
    'a host that opens pages gets the $era server\'s page, and its answer goes back',
    async ({ server }) => {
      const relay = await started(start, 'form+url');
      expect(await relay.callOn(server, 'open-page')).toBe('page: accept');
      expect(relay.heard.elicitations).toEqual([expect.objectContaining({ mode: 'url', url: PAGE_URL })]);
      expect(relay.heard.elicitations[0]!.message).toMatch(new RegExp(`^MCP server "${server}" asks \\(relayed by mcp-statechart serve\\):\\nPay for the order`));
    },
    60_000,
  );

  it.each(HOST_FEATURE_SERVERS.map(({ era }, index) => ({ era, server: index === 0 ? 'modern' : 'legacy' })))(
    'a host that declared only forms is never sent a page: the $era server is not offered url mode',
    async ({ server }) => {
      const relay = await started(start, 'form');
      expect(await relay.callOn(server, 'open-page')).toBe('not asked: the client does not open URLs');
      expect(relay.heard.elicitations).toEqual([]);
    },
    60_000,
  );
});

describe("a legacy server's page done out of band (notifications/elicitation/complete)", () => {
  it('reaches the 2025 host that was sent the page, once, under the id serve gave it; a notice for a page never asked is not passed on', async () => {
    const relay = await started(legacyHost, 'form+url');
    expect(await relay.callOn('legacy', 'open-page-and-finish')).toBe('page: done');
    const [page] = relay.heard.elicitations;
    // serve's own id: two servers' ids cannot clash at the host, nor one server finish another's page.
    expect(page?.elicitationId).toEqual(expect.any(String));
    expect(page?.elicitationId).not.toBe('order-8');
    await vi.waitFor(() => expect(relay.heard.completions).toHaveLength(1));
    expect(relay.heard.completions).toEqual([page!.elicitationId]);
  }, 60_000);

  // 2026-07-28 removed the notice (changelog item 11): its client learns the outcome by retrying, which the call's own rounds are.
  it('is not sent to a 2026-07-28 host: the call it accepted the page on ends with the result', async () => {
    const relay = await started(modernHost, 'form+url');
    expect(await relay.callOn('legacy', 'open-page-and-finish')).toBe('page: done');
    expect(relay.heard.elicitations).toHaveLength(1);
    expect(relay.heard.completions).toEqual([]);
  }, 60_000);
});

/** A host that records the forms and sampling requests serve sends it, and declines or answers each. */
function recordingPeer() {
  const asked: Array<Parameters<HostPeer['elicitInput']>[0]> = [];
  const sampled: Array<Parameters<HostPeer['createMessage']>[0]> = [];
  const peer: HostPeer = {
    getClientCapabilities: () => ({ elicitation: { form: {} }, sampling: {} }),
    elicitInput: async (params) => (asked.push(params), { action: 'decline' }),
    createMessage: async (params) => (sampled.push(params), { role: 'assistant', model: 'host-model', content: { type: 'text', text: 'ok' } }),
    listRoots: () => Promise.reject(new Error('not asked here')),
    completeElicitation: () => {},
  };
  return { asked, sampled, handlers: hostRequestHandlers(peer) };
}

const hostile = '\u001b]0;pwned\u0007\u001b[2J\u202eYEK IPA ruoy';
const escaped = '\\x1b]0;pwned\\x07\\x1b[2J\\u{202e}YEK IPA ruoy';
const anyContext = () => ({ server: 'shop', signal: new AbortController().signal });

describe("a downstream form's words, as they go up", () => {
  it('show control characters and bidi overrides escaped in the message, field titles and descriptions, line breaks kept in the message', async () => {
    const { asked, handlers: { elicitation } } = recordingPeer();
    const requestedSchema = { type: 'object' as const, properties: { key: { type: 'string' as const, title: `Key${hostile}`, description: `one\ntwo${hostile}` } } };
    await elicitation!({ mode: 'form', message: `Sign in\n${hostile}`, requestedSchema }, anyContext());

    const [form] = asked;
    expect(form!.message).toBe(`MCP server "shop" asks (relayed by mcp-statechart serve):\nSign in\n${escaped}\n— asked by MCP server "shop" (relayed by mcp-statechart serve)`);
    const field = form!.mode === 'url' ? undefined : form!.requestedSchema.properties.key;
    expect(field).toMatchObject({ title: `Key${escaped}`, description: `MCP server "shop": one two${escaped}` });
  });

  it("show the choices' titles escaped, each on one line (enumNames, oneOf, a multi-select's anyOf); the values answered stay the server's", async () => {
    const { asked, handlers: { elicitation } } = recordingPeer();
    const requestedSchema = {
      type: 'object' as const,
      properties: {
        legacy: { type: 'string' as const, enum: ['a'], enumNames: [`A${hostile}`] },
        single: { type: 'string' as const, oneOf: [{ const: 'b', title: `B\n${hostile}` }] },
        multi: { type: 'array' as const, items: { anyOf: [{ const: 'c', title: `C${hostile}` }] } },
      },
    };
    await elicitation!({ mode: 'form', message: 'Pick', requestedSchema }, anyContext());

    const [form] = asked;
    const fields = form!.mode === 'url' ? undefined : form!.requestedSchema.properties;
    expect(fields).toEqual({
      legacy: { type: 'string', enum: ['a'], enumNames: [`A${escaped}`] },
      single: { type: 'string', oneOf: [{ const: 'b', title: `B ${escaped}` }] },
      multi: { type: 'array', items: { anyOf: [{ const: 'c', title: `C${escaped}` }] } },
    });
  });

  it('keep a default only when its field takes it and a host can show it as it is: none that contradicts its field, is long, or holds escapes', async () => {
    const { asked, handlers: { elicitation } } = recordingPeer();
    const fits = {
      branch: { type: 'string' as const, default: 'main' },
      force: { type: 'boolean' as const, default: false },
      count: { type: 'integer' as const, minimum: 1, maximum: 5, default: 3 },
      color: { type: 'string' as const, enum: ['red', 'blue'], default: 'blue' },
      size: { type: 'string' as const, oneOf: [{ const: 's', title: 'Small' }], default: 's' },
      tags: { type: 'array' as const, maxItems: 2, items: { type: 'string' as const, enum: ['x', 'y'] }, default: ['y'] },
    };
    const contradicts = {
      huge: { type: 'string' as const, default: 'a'.repeat(1_000_000) },
      escapes: { type: 'string' as const, default: `ok${hostile}` },
      twoLines: { type: 'string' as const, default: 'one\ntwo' },
      posing: { type: 'string' as const, default: '— asked by MCP server "github" (relayed by mcp-statechart serve)' },
      tooLong: { type: 'string' as const, maxLength: 3, default: 'abcd' },
      tooShort: { type: 'string' as const, minLength: 5, default: 'abc' },
      notInteger: { type: 'integer' as const, default: 2.5 },
      outOfRange: { type: 'number' as const, maximum: 10, default: 11 },
      notAChoice: { type: 'string' as const, enum: ['red', 'blue'], default: 'green' },
      notAOneOf: { type: 'string' as const, oneOf: [{ const: 's', title: 'Small' }], default: 'xl' },
      notChoices: { type: 'array' as const, items: { type: 'string' as const, enum: ['x', 'y'] }, default: ['z'] },
      tooMany: { type: 'array' as const, maxItems: 1, items: { anyOf: [{ const: 'x', title: 'X' }, { const: 'y', title: 'Y' }] }, default: ['x', 'y'] },
    };
    await elicitation!({ mode: 'form', message: 'Settings', requestedSchema: { type: 'object', properties: { ...fits, ...contradicts } } }, anyContext());

    const [form] = asked;
    const fields: Record<string, { default?: unknown }> = form!.mode === 'url' ? {} : form!.requestedSchema.properties;
    expect(Object.fromEntries(Object.keys(fits).map((key) => [key, fields[key]!.default]))).toEqual(
      Object.fromEntries(Object.entries(fits).map(([key, field]) => [key, field.default])),
    );
    for (const key of Object.keys(contradicts)) expect(fields[key], key).not.toHaveProperty('default', expect.anything());
    expect(JSON.stringify(form).length).toBeLessThan(10_000);
  });
});

describe("a host's answer to a relayed form", () => {
  const answering = (content: Record<string, string | number | boolean | string[]>) =>
    hostRequestHandlers({
      getClientCapabilities: () => ({ elicitation: { form: {} } }),
      elicitInput: async () => ({ action: 'accept', content }),
      createMessage: () => Promise.reject(new Error('not asked here')),
      listRoots: () => Promise.reject(new Error('not asked here')),
      completeElicitation: () => {},
    }).elicitation!;
  const requestedSchema = {
    type: 'object' as const,
    properties: {
      color: { type: 'string' as const, enum: ['red', 'blue'] },
      size: { type: 'string' as const, oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] },
      tags: { type: 'array' as const, items: { type: 'string' as const, enum: ['x', 'y'] } },
      note: { type: 'string' as const },
    },
  };
  const form = { mode: 'form' as const, message: 'Settings', requestedSchema };

  it('goes to the server when each choice field holds one of its values, or was left out', async () => {
    const content = { color: 'blue', size: 'l', tags: ['x', 'y'], note: 'anything' };
    await expect(answering(content)(form, anyContext())).resolves.toEqual({ action: 'accept', content });
    await expect(answering({ note: 'only this' })(form, anyContext())).resolves.toEqual({ action: 'accept', content: { note: 'only this' } });
  });

  it('is refused with an error naming the field when a choice field holds a value the server did not offer (enum, oneOf, a multi-select item, a lone value for a multi-select)', async () => {
    for (const [field, content] of [
      ['color', { color: 'green' }],
      ['size', { size: 'xl' }],
      ['tags', { tags: ['x', 'z'] }],
      ['tags', { tags: 'x' }],
      ['color', { color: ['red'] }],
    ] satisfies Array<[string, Record<string, string | string[]>]>) {
      await expect(answering(content)(form, anyContext()), field).rejects.toThrow(
        new RegExp(`answered the form of MCP server "shop" with a value for "${field}" that is not one of the field's choices`),
      );
    }
  });
});

describe("a downstream sampling request's text, as it goes up", () => {
  it('shows control characters and bidi overrides escaped in the system prompt and each text block, line breaks kept; other blocks as sent', async () => {
    const { sampled, handlers: { sampling } } = recordingPeer();
    const image = { type: 'image' as const, data: 'aGk=', mimeType: 'image/png' };
    await sampling!(
      {
        systemPrompt: `Be brief\n${hostile}`,
        maxTokens: 10,
        messages: [
          { role: 'user', content: { type: 'text', text: `one\n${hostile}` } },
          { role: 'user', content: [{ type: 'text', text: `two${hostile}` }, image] },
        ],
      },
      anyContext(),
    );

    const [request] = sampled;
    expect(request!.systemPrompt).toBe(`Be brief\n${escaped}`);
    expect(request!.messages).toEqual([
      { role: 'user', content: { type: 'text', text: `one\n${escaped}` } },
      { role: 'user', content: [{ type: 'text', text: `two${escaped}` }, image] },
    ]);
  });
});

describe('which page a completion notice names, as serve maps it', () => {
  it("a server's notice goes up under the id the host was given, once; another server naming that page's id finishes nothing", async () => {
    const given: string[] = [];
    const completed: string[] = [];
    const peer: HostPeer = {
      getClientCapabilities: () => ({ elicitation: { form: {}, url: {} } }),
      elicitInput: async (params) => (given.push(params.mode === 'url' ? params.elicitationId : ''), { action: 'accept' }),
      createMessage: () => Promise.reject(new Error('not asked here')),
      listRoots: () => Promise.reject(new Error('not asked here')),
      completeElicitation: (elicitationId) => void completed.push(elicitationId),
    };
    const { elicitation, elicitationComplete } = hostRequestHandlers(peer);
    const page = { mode: 'url' as const, message: 'Pay for the order', url: PAGE_URL, elicitationId: 'order-7' };
    await elicitation!(page, { server: 'shop', signal: new AbortController().signal });

    elicitationComplete!({ server: 'other', elicitationId: 'order-7' });
    expect(completed).toEqual([]);
    elicitationComplete!({ server: 'shop', elicitationId: 'order-7' });
    elicitationComplete!({ server: 'shop', elicitationId: 'order-7' });
    expect(completed).toEqual(given);
    expect(given).toHaveLength(1);
  });
});

describe('URL-mode elicitation, as the host declares it now (a 2026-07-28 host declares on every request; over HTTP each caller does)', () => {
  it('a page goes up only while the host declares url mode; declared downstream likewise', async () => {
    let declared: ClientCapabilities = { elicitation: { form: {}, url: {} } };
    const sent: unknown[] = [];
    const peer: HostPeer = {
      getClientCapabilities: () => declared,
      elicitInput: async (params) => (sent.push(params), { action: 'accept' }),
      createMessage: () => Promise.reject(new Error('not asked here')),
      listRoots: () => Promise.reject(new Error('not asked here')),
    };
    const { elicitation, elicitationModes } = hostRequestHandlers(peer);
    const modes = () => (typeof elicitationModes === 'function' ? elicitationModes('shop') : elicitationModes);
    const page = { mode: 'url' as const, message: 'Pay for the order', url: PAGE_URL, elicitationId: 'order-7' };
    const context = { server: 'shop', signal: new AbortController().signal };
    // As the manager runs a handler: a throw is the request's error.
    const ask = async () => elicitation!(page, context);

    expect(modes()).toEqual(['form', 'url']);
    await expect(ask()).resolves.toEqual({ action: 'accept' });

    declared = { elicitation: { form: {} } };
    expect(modes()).toEqual(['form']);
    await expect(ask()).rejects.toThrow('MCP server "shop" asked the user to open a page, but the MCP host running mcp-statechart serve does not offer URL-mode elicitation.');
    expect(sent).toHaveLength(1);
  });
});

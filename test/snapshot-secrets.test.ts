/**
 * A persisted registry snapshot holds each server's definition as its file writes it — `${VAR}`
 * references unexpanded, values written literally in `env` and `headers` left out — and never a
 * secret value. A restored server expands its `${VAR}`s again from the registry's `variables`
 * (the same source discovery read), so it connects with the right values and its stderr is still
 * redacted; the values written literally come back by configuring the server again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, type Actor } from 'xstate';
import { createRegistryLogic, discoverMcpServers, enabledServers, sealServerConfig, SessionTracker, type Logger } from '../src/index.js';
import { LISTING_LIMITS } from '../src/connection/manifest.js';
import { DATA_TOO_DEEP } from '../src/redact.js';
import { serverSystemId } from '../machines/index.js';
import type { ServerActorRef } from '../machines/server.machine.js';
import type { McpReply, McpServerConfig } from '../machines/types.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { descendantsOfThisProcess, STDIO_FIXTURE, stdioFixture } from './support/fixtures.js';
import { everythingStdio } from './support/everything.js';
import { hostileServer } from './support/hostile.js';

/** What `${SECRET}` and `${ARG_SECRET}` hold in the environment; the second only ever lands in args. */
const VARIABLE_CANARY = 'canary-variable-3c9e51d7';
const ARG_CANARY = 'canary-argument-6f02a4e8';
/** Values written literally in the file. */
const ENV_CANARY = 'canary-literal-env-84b2f0';
const HEADER_CANARY = 'canary-literal-header-1d6a9c';
/** Credentials written literally where src/literal-secrets.ts finds them: after `--api-key`, in a URL's query. */
const API_KEY_CANARY = 'canary-literal-api-key-7e3b55';
const QUERY_CANARY = 'canary-literal-query-a90c2f';
/** A token in a URL's fragment (`#access_token=…`), which is never sent but is written in the entry. */
const FRAGMENT_CANARY = 'canary-literal-fragment-4d8e16';
/** The password of a subscribed URI. */
const PASSWORD_CANARY = 'canary-uri-password-5b17e9';
/** Credentials in the URI of a resource a server lists, which its entry knows nothing of. */
const LISTED_CANARIES = ['canary-listed-password-0e5d', 'canary-listed-sig-93f1a7'];
const CANARIES = [VARIABLE_CANARY, ARG_CANARY, ENV_CANARY, HEADER_CANARY, API_KEY_CANARY, QUERY_CANARY, FRAGMENT_CANARY];
const variables = { SECRET: VARIABLE_CANARY, ARG_SECRET: ARG_CANARY };

const tracker = new SessionTracker();
const actors: Array<Actor<ReturnType<typeof createRegistryLogic>>> = [];
let folder: string;
let http: HttpFixture;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-snapshot-secrets-'));
  // It answers 401 unless both headers hold exactly the right values.
  http = await startHttpFixture({ requireHeaders: { Authorization: `Bearer ${VARIABLE_CANARY}`, 'X-Api-Key': HEADER_CANARY } });
});
afterEach(async () => {
  for (const actor of actors.splice(0)) actor.stop();
  await tracker.closeAll();
  await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });
});
afterAll(async () => {
  await http.close();
  rmSync(folder, { recursive: true, force: true });
});

/**
 * A stdio server that prints its arguments and two variables to stderr, and reports them in
 * `reportFile`. `${ARG_SECRET}` lands in an argument nothing marks as a secret (not after a
 * secret-naming flag): only knowing what the variable held redacts it.
 */
function printingServer(reportFile: string, env: Record<string, string>, literalArgs = ['--api-key', API_KEY_CANARY]) {
  return {
    command: process.execPath,
    args: [STDIO_FIXTURE, '--name=${ARG_SECRET}', ...literalArgs, '--print-argv', '--print-env', 'TOKEN', '--print-env', 'LITERAL', '--report-file', reportFile],
    env,
  };
}

/** Writes the config file and discovers it, as an embedder does in each process. */
async function discover(mcpServers: Record<string, unknown>) {
  const file = join(folder, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers }));
  const { servers, problems } = await discoverMcpServers({ configPaths: [file], env: variables, cwd: folder });
  expect(problems).toEqual([]);
  return enabledServers(servers);
}

function collectingLogger() {
  const lines: string[] = [];
  const sink = (message: string) => lines.push(message);
  const logger: Logger = { debug: sink, info: sink, warn: sink, error: sink };
  return { lines, logger };
}

function inbox() {
  const replies: McpReply[] = [];
  const emitted: unknown[] = [];
  const ref = createActor(
    fromCallback<McpReply>(({ receive }) =>
      receive((event) => {
        if ('requestId' in event) replies.push(event);
        else emitted.push(event);
      }),
    ),
  ).start();
  return { ref, reply: (requestId: string) => replies.find((reply) => reply.requestId === requestId), received: () => emitted };
}

function start(logger: Logger, options: { snapshot?: unknown; servers?: Record<string, unknown> }) {
  const logic = createRegistryLogic({ logger, sessions: tracker, variables });
  const registry = options.snapshot
    ? createActor(logic, { snapshot: options.snapshot as never, input: undefined })
    : createActor(logic, { input: { servers: options.servers as Record<string, McpServerConfig> } });
  actors.push(registry.start());
  return registry;
}

async function load(registry: Actor<ReturnType<typeof createRegistryLogic>>, server: string): Promise<McpReply> {
  const { ref, reply } = inbox();
  registry.send({ type: 'mcp.load', server, replyTo: ref, requestId: server });
  await vi.waitFor(() => expect(reply(server)).toBeDefined(), { timeout: 15_000 });
  return reply(server)!;
}

/** The process is gone with the actor: what a new process would find is the JSON alone. */
async function persistThroughJson(registry: Actor<ReturnType<typeof createRegistryLogic>>): Promise<string> {
  const json = JSON.stringify(registry.getPersistedSnapshot());
  registry.stop();
  await tracker.closeAll();
  return json;
}

function report(file: string): { argv: string[]; env: Record<string, string> } {
  return JSON.parse(readFileSync(file, 'utf8')) as { argv: string[]; env: Record<string, string> };
}

describe('a persisted registry snapshot', () => {
  it('holds no secret value: not a ${VAR} value in args, env or headers, nor an env or header value written literally', async () => {
    const reportFile = join(folder, 'persisted.json');
    const servers = await discover({
      tool: printingServer(reportFile, { TOKEN: '${SECRET}', LITERAL: ENV_CANARY }),
      remote: { url: `${http.url}?key=${QUERY_CANARY}#access_token=${FRAGMENT_CANARY}`, headers: { Authorization: 'Bearer ${SECRET}', 'X-Api-Key': HEADER_CANARY } },
    });
    const { lines, logger } = collectingLogger();
    const registry = start(logger, { servers });
    expect(await load(registry, 'tool')).toMatchObject({ type: 'mcp.loaded' });
    expect(await load(registry, 'remote')).toMatchObject({ type: 'mcp.loaded' });
    // The servers got the real values…
    expect(report(reportFile)).toEqual({
      argv: expect.arrayContaining([`--name=${ARG_CANARY}`, API_KEY_CANARY]),
      env: { TOKEN: VARIABLE_CANARY, LITERAL: ENV_CANARY },
    });

    const json = await persistThroughJson(registry);
    // …and the snapshot holds none of them: the definition as written, with the variable's name.
    for (const canary of CANARIES) expect(json).not.toContain(canary);
    expect(json).toContain('--name=${ARG_SECRET}');
    expect(json).toContain('Bearer ${SECRET}');
    expect(lines.join('\n')).toContain('argv: --name=[redacted] --api-key [redacted]');
    expect(json).toContain('"--api-key","[sealed]"');
    expect(json).toContain('/mcp?[sealed]#[sealed]');
  });

  it('restored, expands its ${VAR}s again: the server connects with the right values and its stderr tail stays redacted', async () => {
    const reportFile = join(folder, 'variables-only.json');
    const servers = await discover({ tool: printingServer(reportFile, { TOKEN: '${SECRET}', LITERAL: 'Bearer ${SECRET}' }, []) });
    const first = collectingLogger();
    const original = start(first.logger, { servers });
    expect(await load(original, 'tool')).toMatchObject({ type: 'mcp.loaded' });
    const json = await persistThroughJson(original);
    rmSync(reportFile);

    const { lines, logger } = collectingLogger();
    const restored = start(logger, { snapshot: JSON.parse(json) });
    expect(await load(restored, 'tool')).toMatchObject({ type: 'mcp.loaded' });
    expect(report(reportFile)).toEqual({
      argv: expect.arrayContaining([`--name=${ARG_CANARY}`]),
      env: { TOKEN: VARIABLE_CANARY, LITERAL: `Bearer ${VARIABLE_CANARY}` },
    });
    const stderr = lines.filter((line) => line.startsWith('[tool stderr]'));
    expect(stderr).toContain('[tool stderr] argv: --name=[redacted] --print-argv --print-env TOKEN --print-env LITERAL --report-file ' + reportFile);
    expect(stderr).toContain('[tool stderr] TOKEN=[redacted]');
    for (const canary of CANARIES) expect(lines.join('\n')).not.toContain(canary);
  });

  it('restored, refuses to connect without the values written literally, naming their fields only; configured again, connects with them', async () => {
    const reportFile = join(folder, 'literal.json');
    const definitions = {
      tool: printingServer(reportFile, { TOKEN: '${SECRET}', LITERAL: ENV_CANARY }),
      remote: { url: `${http.url}?key=${QUERY_CANARY}`, headers: { Authorization: 'Bearer ${SECRET}', 'X-Api-Key': HEADER_CANARY } },
    };
    const first = collectingLogger();
    const original = start(first.logger, { servers: await discover(definitions) });
    expect(await load(original, 'tool')).toMatchObject({ type: 'mcp.loaded' });
    const json = await persistThroughJson(original);
    rmSync(reportFile);

    const { lines, logger } = collectingLogger();
    const restored = start(logger, { snapshot: JSON.parse(json) });
    const refused = await load(restored, 'tool');
    expect(refused.type).toBe('mcp.failed');
    const error = refused.type === 'mcp.failed' ? refused.error : undefined;
    expect(error).toMatchObject({ code: 'CONFIG_ERROR' });
    expect(error?.message).toMatch(/env\.LITERAL, args\[3\] were written literally.*send mcp\.configure with the server's definition again/);
    expect(await load(restored, 'remote')).toMatchObject({ error: { message: expect.stringMatching(/headers\.X-Api-Key, url were written literally/) } });
    expect(descendantsOfThisProcess()).toEqual([]);

    // What an embedder restoring in a new process has: the file and the environment.
    restored.send({ type: 'mcp.configure', servers: await discover(definitions) });
    expect(await load(restored, 'tool')).toMatchObject({ type: 'mcp.loaded' });
    expect(await load(restored, 'remote')).toMatchObject({ type: 'mcp.loaded' });
    expect(report(reportFile).env).toEqual({ TOKEN: VARIABLE_CANARY, LITERAL: ENV_CANARY });
    const everything = [...lines, error?.message, JSON.stringify(restored.getPersistedSnapshot())].join('\n');
    for (const canary of CANARIES) expect(everything).not.toContain(canary);
  });

  it('holds no secret value whatever state its servers are in: never loaded, connected with a call running, failed, renewing an expired session with a read waiting', async () => {
    // Each entry's secret is also in what it is asked (a URI, a tool's arguments): a request held for later is persisted too.
    const renewing = await startHttpFixture({ expireSessionsAfter: 6, expiringSessions: 1, hangAfterSessions: 1 });
    try {
      const { lines, logger } = collectingLogger();
      const registry = start(logger, {
        servers: {
          idle: { ...stdioFixture(), env: { TOKEN: ENV_CANARY } },
          connected: { ...stdioFixture(), env: { TOKEN: ENV_CANARY } },
          failed: { command: join(folder, 'no-such-server'), env: { TOKEN: ENV_CANARY } },
          renewing: { url: renewing.url, headers: { 'X-Api-Key': HEADER_CANARY } },
        },
      });
      const state = (server: string) => (registry.system.get(serverSystemId(server)) as ServerActorRef).getSnapshot().value;
      expect(await load(registry, 'connected')).toMatchObject({ type: 'mcp.loaded' });
      expect(await load(registry, 'failed')).toMatchObject({ type: 'mcp.failed' });
      expect(await load(registry, 'renewing')).toMatchObject({ type: 'mcp.loaded' });
      const caller = inbox();
      registry.send({ type: 'mcp.callTool', server: 'connected', tool: 'slow', arguments: { ms: 60_000, note: ENV_CANARY }, replyTo: caller.ref, requestId: 'call' });
      registry.send({ type: 'mcp.readResource', server: 'renewing', uri: `fixture://items/${HEADER_CANARY}`, replyTo: caller.ref, requestId: 'read' });
      // The read's session expires, and the new one never finishes connecting: the read waits to be sent again.
      await vi.waitFor(() => expect(renewing.requests.filter((request) => request.rpcMethod === 'initialize')).toHaveLength(2), { timeout: 10_000 });
      expect(state('connected')).toEqual({ connected: 'ready' });
      expect(Object.keys(state('failed'))).toEqual(['error']);
      expect(Object.keys(state('renewing'))).toEqual(['connecting']);

      const json = await persistThroughJson(registry);
      for (const canary of CANARIES) expect(json).not.toContain(canary);
      for (const canary of CANARIES) expect(lines.join('\n')).not.toContain(canary);
    } finally {
      await renewing.close();
    }
  });

  it('written to a file, holds no secret a server quoted or a URI carried; restored, it subscribes again to the URIs without one', async () => {
    const document = 'demo://resource/static/document/architecture.md';
    // A query that names no credential is no credential: that URI is kept.
    const kept = [document, `${document}?page=2`];
    const withCredentials = [`${document}?page=3&token=${QUERY_CANARY}`, `demo://alice:${PASSWORD_CANARY}@docs/readme`, `demo://notes/${VARIABLE_CANARY}`];
    const [listedPassword, listedSig] = LISTED_CANARIES;
    const listedFile = join(folder, 'listed-uri.txt');
    writeFileSync(listedFile, `https://reader:${listedPassword}@docs.example/report?page=2&sig=${listedSig}`);
    const { lines, logger } = collectingLogger();
    const servers = await discover({
      // Its echo tool's description quotes the value of TOKEN.
      quoting: { ...stdioFixture('--describe-from-env', 'TOKEN'), env: { TOKEN: ENV_CANARY } },
      // Through a variable, so the restored server connects by itself.
      everything: { ...everythingStdio(), env: { API_KEY: '${SECRET}' } },
      remote: { url: http.url, headers: { Authorization: 'Bearer ${SECRET}', 'X-Api-Key': HEADER_CANARY } },
      // It lists one resource, whose URI carries credentials of the server's own (read from a file: its entry knows none of them).
      lister: hostileServer('--resource-file', listedFile),
    });
    const registry = start(logger, { servers });
    for (const server of ['quoting', 'everything', 'remote', 'lister']) expect(await load(registry, server)).toMatchObject({ type: 'mcp.loaded' });
    const caller = inbox();
    for (const uri of [...kept, ...withCredentials]) {
      registry.send({ type: 'mcp.subscribeResource', server: 'everything', uri, replyTo: caller.ref, requestId: uri });
      await vi.waitFor(() => expect(caller.reply(uri)).toMatchObject({ type: 'mcp.resourceSubscribed' }), { timeout: 10_000 });
    }
    // A new session is handed the subscriptions to make again.
    registry.send({ type: 'mcp.disconnect', server: 'everything' });
    await vi.waitFor(() => expect((registry.system.get(serverSystemId('everything')) as ServerActorRef).getSnapshot().value).toEqual({ disconnected: 'idle' }), { timeout: 10_000 });
    expect(await load(registry, 'everything')).toMatchObject({ type: 'mcp.loaded' });
    const file = join(folder, 'registry-snapshot.json');
    writeFileSync(file, await persistThroughJson(registry));

    const onDisk = readFileSync(file, 'utf8');
    for (const canary of [...CANARIES, PASSWORD_CANARY, ...LISTED_CANARIES]) expect(onDisk).not.toContain(canary);
    expect(onDisk).toContain('signed with [redacted]');
    // A listed resource stays listed: only its credentials go.
    expect(onDisk).toContain('"https://[redacted]@docs.example/report?page=2&sig=[redacted]"');

    const restored = start(logger, { snapshot: JSON.parse(readFileSync(file, 'utf8')) });
    const logs = inbox();
    restored.send({ type: 'mcp.subscribe', replyTo: logs.ref, include: ['mcp.log'] });
    expect(await load(restored, 'everything')).toMatchObject({ type: 'mcp.loaded' });
    const everythingServer = restored.system.get(serverSystemId('everything')) as ServerActorRef;
    expect(everythingServer.getSnapshot().context.subscriptions).toEqual(kept);
    for (const uri of kept) {
      await vi.waitFor(() => expect(logs.received()).toContainEqual(expect.objectContaining({ data: expect.stringContaining(`Received Subscribe Resource request for URI: ${uri}`) })), {
        timeout: 10_000,
      });
    }
    for (const canary of [...CANARIES, PASSWORD_CANARY]) expect(lines.join('\n')).not.toContain(canary);
  });

  it("keeps a tool schema as deep as a listing keeps one whole, with a secret in its entry: nothing is cut short", async () => {
    // The hostile fixture's `deep` tool nests two objects a level ({"type":"object","properties":{"x":…}}): this is the deepest
    // tool the listing keeps as sent (LISTING_LIMITS.maxDepth levels, the tool's own object included).
    const levels = (LISTING_LIMITS.maxDepth - 2) / 2;
    const registry = start(collectingLogger().logger, { servers: { deep: { ...hostileServer('--deep', String(levels)), env: { TOKEN: ENV_CANARY } } } });
    expect(await load(registry, 'deep')).toMatchObject({ type: 'mcp.loaded' });
    const caller = inbox();
    registry.send({ type: 'mcp.callTool', server: 'deep', tool: 'change', arguments: {}, replyTo: caller.ref, requestId: 'change' });
    const manifest = () => (registry.system.get(serverSystemId('deep')) as ServerActorRef).getSnapshot().context.manifest;
    await vi.waitFor(() => expect(manifest()?.tools.map(({ name }) => name)).toContain('deep'), { timeout: 10_000 });
    const listed = manifest()!.tools.find(({ name }) => name === 'deep')!;
    expect(listed.description).toBe('Takes a deep form');

    const json = await persistThroughJson(registry);
    expect(json).not.toContain(ENV_CANARY);
    expect(json).not.toContain(DATA_TOO_DEEP);
    const restored = start(collectingLogger().logger, { snapshot: JSON.parse(json) });
    const kept = (restored.system.get(serverSystemId('deep')) as ServerActorRef).getSnapshot().context.manifest?.tools.find(({ name }) => name === 'deep');
    expect(kept?.inputSchema).toEqual(listed.inputSchema);
  });

  it('tells a changed hidden value from an unchanged one without holding either: the definition changes, so the server reconnects', () => {
    const definition = (token: string) => ({ command: 'node', args: ['server.js'], env: { API_KEY: token } });
    const sealed = sealServerConfig(definition(ENV_CANARY));
    expect(JSON.stringify(sealed)).not.toContain(ENV_CANARY);
    expect(sealed.env).toEqual({ API_KEY: '[sealed]' });
    expect(JSON.stringify(sealServerConfig(definition(ENV_CANARY)))).toBe(JSON.stringify(sealed));
    expect(JSON.stringify(sealServerConfig(definition(`${ENV_CANARY}-rotated`)))).not.toBe(JSON.stringify(sealed));
    // Sealing is idempotent, and a config with nothing to hide is its own sealed definition.
    expect(sealServerConfig(sealed)).toBe(sealed);
    const plain = { command: 'node', args: ['server.js'] };
    expect(sealServerConfig(plain)).toBe(plain);
  });
});

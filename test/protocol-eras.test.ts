/**
 * Both protocol eras behind the same API: a server that speaks only 2026-07-28 (built with the v2
 * SDK, `legacy: 'reject'`, over stdio and Streamable HTTP), legacy server-everything, and a legacy
 * server that exits on any request before `initialize` are all reached by `connect` and
 * `callTool`, with progress, cancel, timeouts, input requests answered by the manager's handlers
 * (multi round-trip on the modern server, server→client requests on the legacy ones), list
 * changes and the idle close. The era learnt at the first connect is reused when the server comes
 * back, without a second probe.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedClock } from 'xstate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger, type HostRequestContext, type McpConnectionManagerOptions } from '../src/index.js';
import type { McpServerConfig } from '../machines/types.js';
import { MAX_INPUT_ROUNDS } from '../src/connection/open-session.js';
import { everythingStdio } from './support/everything.js';
import { rejectionOf, settle, stdioFixture } from './support/fixtures.js';
import { MODERN_SERVER, modernHttp as startModernHttp } from './support/modern-server.js';

const MODERN_TOOLS = ['echo', 'ask-name', 'list-roots', 'open-page', 'sample-with-tools', 'pid', 'ask-forever', 'progress', 'log-levels', 'cancelled-calls', 'add-tool', 'listings', 'open-subscriptions', 'drop-subscriptions', 'storm-lists', 'task-steps', 'task-ask-name', 'task-ask-sample', 'task-ask-roots', 'task-forever', 'task-deaf', 'task-fails', 'task-notified', 'task-counters'];

let folder: string;
let manager: McpConnectionManager | undefined;
const children: ChildProcess[] = [];
const modernHttp = (...flags: string[]) => startModernHttp(children, ...flags);
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-eras-'));
});
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

function managerWith(options: McpConnectionManagerOptions = {}): McpConnectionManager {
  manager = new McpConnectionManager({ logger: silentLogger, ...options });
  return manager;
}

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
}

function probesIn(log: string): number {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
}

type ToolCall = [tool: string, args: Record<string, unknown>];

/** A server the same scenarios run against, and which of its tools play each part. */
interface EraTarget {
  label: string;
  era: 'modern' | 'legacy';
  start: () => Promise<McpServerConfig>;
  /** The arguments of its `echo` tool for this text. */
  echoArgs: (text: string) => Record<string, unknown>;
  /** Reports three progress steps, then answers. */
  threeSteps: ToolCall;
  /** Reports progress now and then for a minute: cancelled or timed out long before it ends. */
  minute: ToolCall;
  /** How many calls of `minute` the server saw cancelled (where the server counts them). */
  cancelledCalls?: string;
  /** Asks for a name through elicitation; the answer shows in its text. */
  askName?: { tool: string; answered: RegExp };
  /** Asks for the roots; their URIs show in its text. */
  listRoots?: string;
  /** Adds a tool of the given name and tells the client the tool list changed. */
  addTool?: (name: string) => ToolCall;
}

const modernTools = {
  era: 'modern',
  echoArgs: (text) => ({ text }),
  threeSteps: ['progress', { steps: 3, intervalMs: 20 }],
  minute: ['progress', { steps: 600, intervalMs: 100 }],
  cancelledCalls: 'cancelled-calls',
  askName: { tool: 'ask-name', answered: /hello Ada/ },
  listRoots: 'list-roots',
  addTool: (name) => ['add-tool', { name }],
} satisfies Partial<EraTarget>;

const TARGETS: EraTarget[] = [
  { label: 'the modern-only server over stdio', start: async () => ({ command: process.execPath, args: [MODERN_SERVER] }), ...modernTools },
  { label: 'the modern-only server over Streamable HTTP', start: modernHttp, ...modernTools },
  {
    label: 'legacy server-everything',
    era: 'legacy',
    start: async () => everythingStdio(),
    echoArgs: (message) => ({ message }),
    threeSteps: ['trigger-long-running-operation', { duration: 0.3, steps: 3 }],
    minute: ['trigger-long-running-operation', { duration: 60, steps: 600 }],
    askName: { tool: 'trigger-elicitation-request', answered: /Name: Ada/ },
    listRoots: 'get-roots-list',
  },
  {
    label: 'a legacy server that exits on any request before initialize',
    era: 'legacy',
    start: async () => stdioFixture('--mode', 'exit-before-initialize', '--progress-tools'),
    echoArgs: (text) => ({ text }),
    threeSteps: ['progress', { steps: 3, intervalMs: 20 }],
    minute: ['progress', { steps: 600, intervalMs: 100 }],
    cancelledCalls: 'cancelled_calls',
    addTool: (name) => ['add_tool', { name }],
  },
];

const ANSWER_ADA = { action: 'accept' as const, content: { name: 'Ada' } };

describe.each(TARGETS)('$label', (target) => {
  const echo = (client: McpConnectionManager) => client.callTool('server', 'echo', target.echoArgs('still here')).then(textOf);

  it(`connects on the ${target.era} era, lists and calls`, async () => {
    const client = managerWith();
    const manifest = await client.connect('server', await target.start(), { maxRetries: 0 });
    expect(manifest.tools.map((tool) => tool.name)).toContain(target.threeSteps[0]);
    expect(client.getClient('server')?.getProtocolEra()).toBe(target.era);
    expect(await echo(client)).toMatch('still here');
  });

  it('passes progress to onProgress, in order', async () => {
    const client = managerWith();
    await client.connect('server', await target.start(), { maxRetries: 0 });
    const updates: number[] = [];
    await client.callTool('server', ...target.threeSteps, { onProgress: ({ progress }) => updates.push(progress) });
    // The last update may lose a race with the result inside the SDK (it dispatches notifications a
    // microtask later than responses; server-everything sends its last one right before the result).
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates).toEqual([1, 2, 3].slice(0, updates.length));
  });

  it('cancels a call: it rejects as aborted, the server is told, the connection stays', async () => {
    const client = managerWith();
    await client.connect('server', await target.start(), { maxRetries: 0 });
    const controller = new AbortController();
    let firstUpdate!: () => void;
    const started = new Promise<void>((resolve) => (firstUpdate = resolve));
    const call = client.callTool('server', ...target.minute, { signal: controller.signal, onProgress: () => firstUpdate() });
    await started;
    controller.abort();
    expect((await rejectionOf(call)).name).toBe('AbortError');
    if (target.cancelledCalls) {
      const cancelled = () => client.callTool('server', target.cancelledCalls!, {}).then(textOf);
      await expect.poll(cancelled, { timeout: 10_000 }).toBe('1');
    }
    expect(await echo(client)).toMatch('still here');
  });

  it('times a call out after timeoutMs, and the connection stays', async () => {
    const client = managerWith();
    await client.connect('server', await target.start(), { maxRetries: 0 });
    const error = await rejectionOf(client.callTool('server', ...target.minute, { timeoutMs: 300 }));
    expect(error.message).toMatch(/timed out|timeout/i);
    expect(client.getState('server')).toBe('connected');
    expect(await echo(client)).toMatch('still here');
  });

  const { askName, listRoots, addTool } = target;
  // Each server plays only the parts it has tools for.
  if (askName) it('answers an elicitation with handlers.elicitation', async () => {
    const asked: string[] = [];
    const client = managerWith({
      handlers: {
        elicitation: (params) => {
          asked.push(params.message);
          return ANSWER_ADA;
        },
      },
    });
    await client.connect('server', await target.start(), { maxRetries: 0 });
    expect(textOf(await client.callTool('server', askName.tool, {}))).toMatch(askName.answered);
    expect(asked).toHaveLength(1);
  });

  if (listRoots) it('answers a roots request with handlers.roots, then with what setRoots gave, and warns of nothing', async () => {
    const warnings: string[] = [];
    const client = managerWith({ handlers: { roots: [{ uri: 'file:///first/project', name: 'first' }] }, logger: { ...silentLogger, warn: (message) => warnings.push(message) } });
    await client.connect('server', await target.start(), { maxRetries: 0 });
    const roots = () => client.callTool('server', listRoots, {}).then(textOf);
    expect(await roots()).toMatch('file:///first/project');
    // A 2025 server is sent roots/list_changed; 2026-07-28 removed it, and its server gets the new roots when it next asks.
    await client.setRoots([{ uri: 'file:///second/project', name: 'second' }]);
    await expect.poll(roots, { timeout: 10_000 }).toMatch('file:///second/project');
    expect(await roots()).not.toMatch('file:///first/project');
    expect(warnings).toEqual([]);
  });

  if (listRoots) it("tells the roots handler whether the server keeps the answer for its connection (2025) or for the one call (2026-07-28)", async () => {
    const kept: Array<boolean | undefined> = [];
    const roots = (context: HostRequestContext) => {
      kept.push(context.keptByConnection);
      return [{ uri: 'file:///asked/project' }];
    };
    const client = managerWith({ handlers: { roots } });
    await client.connect('server', await target.start(), { maxRetries: 0 });
    expect(textOf(await client.callTool('server', listRoots, {}))).toMatch('file:///asked/project');
    expect(kept.length).toBeGreaterThan(0);
    expect(new Set(kept)).toEqual(new Set([target.era === 'legacy']));
  });

  if (addTool) it('follows a list change: the new tool is in the manifest', async () => {
    const client = managerWith();
    await client.connect('server', await target.start(), { maxRetries: 0 });
    await client.callTool('server', ...addTool('shout'));
    const toolNames = () => client.getManifest('server')?.tools.map((tool) => tool.name);
    await expect.poll(toolNames, { timeout: 10_000 }).toContain('shout');
    expect(textOf(await client.callTool('server', 'shout', target.echoArgs('new')))).toBe('new');
  });

  it('closes after idleTimeoutMs without activity', async () => {
    const clock = new SimulatedClock();
    const client = managerWith({ clock });
    await client.connect('server', await target.start(), { maxRetries: 0, idleTimeoutMs: 60_000 });
    await echo(client);
    clock.increment(59_999);
    await settle();
    expect(client.getState('server')).toBe('connected');
    clock.increment(1);
    await expect.poll(() => client.getState('server'), { timeout: 10_000 }).toBe('disconnected');
    await expect.poll(() => client.openSessionCount('server'), { timeout: 10_000 }).toBe(0);
  });
});

describe('a server that speaks only 2026-07-28', () => {
  const modern = (...flags: string[]): McpServerConfig => ({ command: process.execPath, args: [MODERN_SERVER, ...flags] });

  it('lists its tools and reports the revision it negotiated', async () => {
    const client = managerWith();
    const manifest = await client.connect('modern', modern());
    expect(manifest.tools.map((tool) => tool.name)).toEqual(MODERN_TOOLS);
    expect(client.getClient('modern')?.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  });

  it(`gives up on a request still asking for input after ${MAX_INPUT_ROUNDS} rounds, with an error that says so`, async () => {
    let asked = 0;
    const client = managerWith({
      handlers: {
        elicitation: () => {
          asked++;
          return ANSWER_ADA;
        },
      },
    });
    await client.connect('modern', modern());
    const error = await rejectionOf(client.callTool('modern', 'ask-forever', {}));
    expect(error.message).toContain(`the server still asked for input after ${MAX_INPUT_ROUNDS} rounds of answers, so the call was given up`);
    expect(error.message).not.toContain('inputRequired.maxRounds');
    expect(asked).toBe(MAX_INPUT_ROUNDS);
    expect(client.getState('modern')).toBe('connected');
  });

  it('fails a call asking input no handler answers with an error naming the handler to give', async () => {
    const client = managerWith();
    await client.connect('modern', modern());
    const elicitation = await rejectionOf(client.callTool('modern', 'ask-name', {}));
    expect(elicitation.message).toMatch(/-32021: .*give handlers\.elicitation in the options of McpConnectionManager \(or createRegistryLogic\)/);
    const roots = await rejectionOf(client.callTool('modern', 'list-roots', {}));
    expect(roots.message).toMatch(/give handlers\.roots \(or call setRoots\(\) before connecting\)/);
    expect(client.getState('modern')).toBe('connected');
  });

  it('tells the model through call_mcp_tool that such a tool cannot be used here, rather than to try again', async () => {
    const client = managerWith();
    const tools = createLoaderTools({ manager: client, servers: { modern: modern() } });
    const [load, call] = ['load_mcp', 'call_mcp_tool'].map((name) => tools.find((tool) => tool.name === name)!);
    expect((await load!.execute({ server: 'modern' })).isError).toBe(false);
    const result = await call!.execute({ server: 'modern', tool: 'ask-name', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/-32021: [^\n]*\nThe tool needs input \(a form, a sampling or the roots\) that this application does not answer, so calling it again will not help: tell the user it cannot be used here\.$/);
    const echo = await call!.execute({ server: 'modern', tool: 'echo', arguments: { text: 'still here' } });
    expect(echo.isError).toBe(false);
  });

  it("fails a round whose handler does not answer within the handlers' timeoutMs", async () => {
    const client = managerWith({
      handlers: {
        timeoutMs: 200,
        elicitation: (_params, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      },
    });
    await client.connect('modern', modern());
    const error = await rejectionOf(client.callTool('modern', 'ask-name', {}));
    expect(error.message).toMatch(/elicitation handler did not answer within 200 ms/);
    expect(client.getState('modern')).toBe('connected');
  });

  it('after a kill -9, reconnects on the era it learnt: no second probe', async () => {
    const client = managerWith();
    const probeLog = join(folder, 'probes.log');
    writeFileSync(probeLog, '');
    const config = modern('--probe-log', probeLog);
    await client.connect('modern', config, { maxRetries: 0 });
    expect(probesIn(probeLog)).toBe(1);
    const pid = Number(textOf(await client.callTool('modern', 'pid', {})));
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => client.getState('modern'), { timeout: 10_000 }).not.toBe('connected');
    await client.disconnect('modern');

    await client.connect('modern', config);
    expect(textOf(await client.callTool('modern', 'echo', { text: 'back' }))).toBe('back');
    expect(Number(textOf(await client.callTool('modern', 'pid', {})))).not.toBe(pid);
    expect(probesIn(probeLog)).toBe(1);
  });

  it('follows list changes over HTTP after its subscriptions/listen stream dropped: the stream is opened again', async () => {
    const client = managerWith();
    await client.connect('modern', await modernHttp());
    const toolNames = () => client.getManifest('modern')?.tools.map((tool) => tool.name);
    await client.callTool('modern', 'add-tool', { name: 'first' });
    await expect.poll(toolNames, { timeout: 10_000 }).toContain('first');
    expect(textOf(await client.callTool('modern', 'drop-subscriptions', {}))).toBe('dropped 1');
    // Opened again after LISTEN_REOPEN_STEP_MS: the server has a stream to tell of the next change.
    await expect.poll(() => client.callTool('modern', 'open-subscriptions', {}).then(textOf), { timeout: 10_000 }).toBe('1');
    await client.callTool('modern', 'add-tool', { name: 'second' });
    await expect.poll(toolNames, { timeout: 10_000 }).toContain('second');
  });

  it('lists again once ttlMs is up, and keeps what the server said of the list in the manifest', async () => {
    const client = managerWith();
    const manifest = await client.connect('modern', await modernHttp('--list-ttl-ms', '1500'));
    expect(manifest.freshness).toEqual({ tools: { ttlMs: 1500, cacheScope: 'public' } });
    await client.callTool('modern', 'add-tool', { name: 'unannounced' });
    const toolNames = () => client.getManifest('modern')?.tools.map((tool) => tool.name);
    // Not announced (no listChanged): only the re-listing after ttlMs finds it.
    expect(toolNames()).not.toContain('unannounced');
    await expect.poll(toolNames, { timeout: 10_000 }).toContain('unannounced');
  });

  it('gets the log level setLoggingLevel gave with each request, and its log messages reach handlers.logging', async () => {
    const messages: unknown[] = [];
    const client = managerWith({ handlers: { logging: (message) => messages.push(message.data) } });
    await client.connect('modern', modern());
    await client.setLoggingLevel('warning');
    expect(textOf(await client.callTool('modern', 'log-levels', {}))).toBe('asked for warning');
    await expect.poll(() => messages, { timeout: 10_000 }).toEqual(['a warning message']);
  });

  it("pinned to legacy by the entry's protocol field, it is refused as a config error", async () => {
    const error = await rejectionOf(managerWith().connect('modern', { ...modern(), protocol: 'legacy' }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'modern' });
    expect(error.message).toMatch(/-32022/);
  });
});

describe('legacy servers', () => {
  it("pinned to 2026-07-28 by the entry's protocol field, it is refused as a config error after one attempt, saying what to set", async () => {
    const client = managerWith();
    let attempts = 0;
    client.on('mcp.stateChanged', (event) => {
      if (event.substate === 'connecting.negotiating') attempts++;
    });
    const error = await rejectionOf(client.connect('legacy', { ...everythingStdio(), protocol: 'modern' }, { maxRetries: 3 }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'legacy' });
    expect(error.message).toContain('did not offer pinned protocol version 2026-07-28');
    expect(error.message).toContain('"protocol" to "auto"');
    expect(attempts).toBe(1);
  });

  it('a server that exits on any request before initialize survives the probe: it ran on a sibling process', async () => {
    const client = managerWith();
    await client.connect('strict', stdioFixture('--mode', 'exit-before-initialize'), { maxRetries: 0 });
    expect(textOf(await client.callTool('strict', 'echo', { text: 'still here' }))).toBe('still here');
    expect(client.getClient('strict')?.getProtocolEra()).toBe('legacy');
  });
});

/**
 * An agent chart that invokes `createRegistryLogic` and is inspected by a plain observer (or by
 * `@statelyai/inspect`) sees no secret value: the registry and its servers hold sealed definitions
 * (src/sealed-config.ts), and the configs `enabledServers` gives the agent are sealed too, so no
 * snapshot, event or action of any actor in the system carries one — nothing to sanitize.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInspector } from '@statelyai/inspect';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertEvent, assign, createActor, sendTo, setup, type AnyActorRef, type InspectionEvent } from 'xstate';
import { createRegistryLogic, discoverMcpServers, enabledServers, SessionTracker, silentLogger } from '../src/index.js';
import type { McpRegistryInput, McpReply, McpServerConfig } from '../machines/types.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { descendantsOfThisProcess, STDIO_FIXTURE } from './support/fixtures.js';

const VARIABLE_CANARY = 'canary-inspected-variable-5b8d12';
const ARG_CANARY = 'canary-inspected-argument-c47e09';
const ENV_CANARY = 'canary-inspected-env-90af3d';
const HEADER_CANARY = 'canary-inspected-header-2e61b7';
const API_KEY_CANARY = 'canary-inspected-api-key-4f7d20';
const CANARIES = [VARIABLE_CANARY, ARG_CANARY, ENV_CANARY, HEADER_CANARY, API_KEY_CANARY];
const variables = { SECRET: VARIABLE_CANARY, ARG_SECRET: ARG_CANARY };

const tracker = new SessionTracker();
let folder: string;
let http: HttpFixture;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-embedded-inspection-'));
  http = await startHttpFixture({ requireHeaders: { Authorization: `Bearer ${VARIABLE_CANARY}`, 'X-Api-Key': HEADER_CANARY } });
});
afterEach(async () => {
  await tracker.closeAll();
  await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });
});
afterAll(async () => {
  await http.close();
  rmSync(folder, { recursive: true, force: true });
});

type Ask = { type: 'ask'; request: McpRegistryInput };

/** An agent that keeps its servers in its context, invokes the registry with them, and keeps every reply. */
const agentChart = setup({
  types: {
    input: {} as { servers: Record<string, McpServerConfig> },
    context: {} as { servers: Record<string, McpServerConfig>; replies: McpReply[] },
    events: {} as Ask | McpReply,
    children: {} as { mcp: 'mcp' },
  },
  actors: { mcp: createRegistryLogic({ logger: silentLogger, sessions: tracker, variables }) },
  actions: {
    'ask the registry': sendTo('mcp', ({ event }) => {
      assertEvent(event, 'ask');
      return event.request;
    }),
    'keep the reply': assign({ replies: ({ context, event }) => [...context.replies, event as McpReply] }),
  },
}).createMachine({
  context: ({ input }) => ({ servers: input.servers, replies: [] }),
  invoke: { id: 'mcp', src: 'mcp', input: ({ context }) => ({ servers: context.servers }) },
  entry: sendTo('mcp', ({ self }) => ({ type: 'mcp.subscribe' as const, replyTo: self })),
  on: {
    ask: { actions: 'ask the registry' },
    'mcp.loaded': { actions: 'keep the reply' },
    'mcp.toolResult': { actions: 'keep the reply' },
    'mcp.failed': { actions: 'keep the reply' },
  },
});

function isActorRef(value: object): value is AnyActorRef {
  return typeof (value as AnyActorRef).getSnapshot === 'function' && typeof (value as AnyActorRef).send === 'function';
}

/**
 * Every string reachable from `value` through own properties (symbol keys and non-enumerable ones
 * included), reading an actor ref as its snapshot: what an inspector could ever print of it.
 */
function reachableStrings(value: unknown, found: string[], seen: WeakSet<object>, depth = 0): void {
  if (typeof value === 'string') {
    found.push(value);
    return;
  }
  if (value === null || typeof value !== 'object' || seen.has(value) || depth > 200) return;
  seen.add(value);
  if (isActorRef(value)) {
    reachableStrings(value.getSnapshot(), found, seen, depth + 1);
    return;
  }
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && 'value' in descriptor) reachableStrings(descriptor.value, found, seen, depth + 1);
  }
}

async function discoveredServers() {
  const file = join(folder, 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        tool: {
          command: process.execPath,
          args: [STDIO_FIXTURE, '--name=${ARG_SECRET}', '--api-key', API_KEY_CANARY, '--print-env', 'TOKEN', '--print-env', 'LITERAL'],
          env: { TOKEN: '${SECRET}', LITERAL: ENV_CANARY },
        },
        remote: { url: http.url, headers: { Authorization: 'Bearer ${SECRET}', 'X-Api-Key': HEADER_CANARY } },
      },
    }),
  );
  const { servers, problems } = await discoverMcpServers({ configPaths: [file], env: variables, cwd: folder });
  expect(problems).toEqual([]);
  return enabledServers(servers);
}

describe('an agent chart embedding the registry, inspected', () => {
  it('shows a plain observer and @statelyai/inspect no secret value while it loads, calls, reconfigures and disconnects', async () => {
    const servers = await discoveredServers();
    const inspected: InspectionEvent[] = [];
    const statelyMessages: unknown[] = [];
    const stately = createInspector({ send: (message) => statelyMessages.push(message) });
    const agent = createActor(agentChart, {
      input: { servers },
      inspect: (event) => {
        inspected.push(event);
        stately.inspect.next?.(event);
      },
    }).start();
    const ask = (request: McpRegistryInput) => agent.send({ type: 'ask', request });
    const reply = (requestId: string) => agent.getSnapshot().context.replies.find((answer) => answer.requestId === requestId);

    ask({ type: 'mcp.load', server: 'tool', replyTo: agent, requestId: 'load-tool' });
    ask({ type: 'mcp.load', server: 'remote', replyTo: agent, requestId: 'load-remote' });
    await vi.waitFor(() => expect([reply('load-tool')?.type, reply('load-remote')?.type]).toEqual(['mcp.loaded', 'mcp.loaded']), { timeout: 15_000 });
    ask({ type: 'mcp.callTool', server: 'tool', tool: 'echo', arguments: { text: 'hello' }, replyTo: agent, requestId: 'call' });
    await vi.waitFor(() => expect(reply('call')?.type).toBe('mcp.toolResult'), { timeout: 10_000 });
    // The same files read again (a watcher would): configure events carry sealed definitions too.
    ask({ type: 'mcp.configure', servers: await discoveredServers(), mode: 'merge' });
    ask({ type: 'mcp.disconnectAll' });
    await tracker.allSettled();
    // @statelyai/inspect converts each event on a timer of its own.
    await vi.waitFor(() => expect(statelyMessages.length).toBeGreaterThanOrEqual(inspected.filter((event) => event.type !== '@xstate.microstep' && event.type !== '@xstate.action').length));
    agent.stop();

    const strings: string[] = [];
    const seen = new WeakSet<object>();
    for (const event of inspected) reachableStrings(event, strings, seen);
    const everything = [...strings, JSON.stringify(statelyMessages)].join('\n');
    // Counted, not printed: a failure names the canaries found and how many messages held one.
    expect(CANARIES.filter((canary) => everything.includes(canary))).toEqual([]);
    const carrying = statelyMessages.filter((message) => CANARIES.some((canary) => JSON.stringify(message).includes(canary)));
    expect(`${carrying.length} of ${statelyMessages.length} messages carried a secret`).toBe(`0 of ${statelyMessages.length} messages carried a secret`);
    // Not vacuous: the servers' definitions and the calls are in what was inspected.
    expect(inspected.length).toBeGreaterThan(50);
    expect(everything).toContain('--name=${ARG_SECRET}');
    expect(everything).toContain('Bearer ${SECRET}');
    expect(everything).toContain('"LITERAL":"[sealed]"');
    expect(everything).toContain('hello');
  });
});

/**
 * Embedding the MCP registry in your own agent statechart.
 *
 * The agent invokes the registry as a child (`mcp`) and talks to it only with the registry protocol's
 * events: it sends `mcp.load` / `mcp.callTool` with `replyTo: self`, and the answers
 * (`mcp.loaded`, `mcp.toolResult`, `mcp.failed`) arrive as its own events. The chart is pure
 * data, like the ones in machines/: `createAgent(deps)` provides the registry with its effects.
 *
 *   thinking → loadingTools → calling → done
 *        ↘            ↘           ↘
 *                  failed
 *
 * It also subscribes to the registry's reports (`mcp.subscribe`) and keeps the substate of its
 * server (`connecting.negotiating`, `connected.ready`, …), and gives each request a reply timeout.
 * Restored from a persisted snapshot, the agent gets `mcp.restored` from its registry: it
 * subscribes again (subscribers are not kept in a snapshot), and the state it waits in is entered
 * again: its request is sent again (the old one was for a registry that no longer runs it) and its
 * reply timeout starts anew (XState restarts no `after` timer of a restored chart, xstate #5331).
 * Restored with a system id, it is also answered for the old request (`mcp.failed`, code
 * `RESTORED`, ahead of `mcp.restored`): not a failure of the request it sends again.
 *
 * Run it: `npx tsx examples/agent-statechart.ts` (the demo's notes server, examples/servers/, shipped
 * in the package), or `npx tsx examples/agent-statechart.ts <command> [args…]` for a stdio server
 * with an `echo` tool. In a clone, run it from the repository root: tsx then applies tsconfig.json's
 * "paths", which resolve `mcp-statechart` to its sources, so no build is needed (from elsewhere it
 * would resolve to dist/, there only after `npm run build`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { and, assign, createActor, fromPromise, setup, waitFor, type Actor, type AnyActorRef } from 'xstate';
// Only the package's public entry points, as in a project that installed it (inside this
// repository, tsconfig.json "paths" and vitest.config.ts map them to the sources).
import {
  createRegistryLogic,
  pureRegistryLogic,
  sendToRegistry,
  SessionTracker,
  stderrLogger,
  type McpReply,
  type McpReport,
  type McpRestored,
  type McpServerConfig,
  type McpServerError,
  type McpServerManifest,
  type RegistryInput,
  type RegistryLogicOptions,
  type ServerActorRef,
  type ServerSubstate,
} from 'mcp-statechart';

/** What the agent decided to do: one tool call. */
export interface AgentPlan {
  server: string;
  tool: string;
  arguments?: Record<string, unknown>;
}

export interface AgentInput {
  /** The MCP servers the agent may use, as in an mcp.json file. */
  servers: Record<string, McpServerConfig>;
  /** The request the agent thinks about (here it already is the plan; an LLM would derive it). */
  task: AgentPlan;
}

export interface AgentContext {
  servers: Record<string, McpServerConfig>;
  task: AgentPlan;
  plan?: AgentPlan;
  manifest?: McpServerManifest;
  result?: CallToolResult;
  /** Where the planned server is, as the registry last reported it. */
  serverSubstate?: ServerSubstate;
  /** The registry's failure (its `code` says what happened), or the agent's own. */
  error?: McpServerError | Error;
}

/** The registry's id and systemId in the agent, so a host can reach it: `agent.system.get('mcp')`. */
export const MCP_CHILD = 'mcp';
/** The `requestId`s of the agent's two requests: its guards pick out the replies to them. */
export const LOAD_REQUEST = 'agent.load';
export const CALL_REQUEST = 'agent.call';
/** How long the agent waits for the reply to each of its requests. */
export const REPLY_TIMEOUT_MS = 60_000;

export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as McpReply | McpReport | McpRestored,
    input: {} as AgentInput,
  },
  actors: {
    // No effects here (its servers cannot connect): `createAgent(options)` provides a working
    // registry, a test the testing kit's scripted one (the same type: no cast needed).
    mcp: pureRegistryLogic,
    // Where an LLM would pick the next step; the default takes the task as the plan.
    think: fromPromise<AgentPlan, { task: AgentPlan }>(async ({ input }) => input.task),
  },
  delays: {
    replyTimeout: REPLY_TIMEOUT_MS,
  },
  guards: {
    'answers my load': ({ event }) => 'requestId' in event && event.requestId === LOAD_REQUEST,
    // Restored with a system id, the agent is answered for the request of the old run before
    // `mcp.restored` arrives, with the same request id as the one it is about to send again.
    'is an answer from before the restore': ({ event }) => event.type === 'mcp.failed' && event.error.code === 'RESTORED',
    'answers my call': ({ event }) => 'requestId' in event && event.requestId === CALL_REQUEST,
    'offers the planned tool': ({ context, event }) =>
      event.type === 'mcp.loaded' && event.manifest.tools.some((tool) => tool.name === context.plan?.tool),
  },
  actions: {
    // sendToRegistry checks the event against the registry's protocol: a misspelt type or a
    // missing requestId does not compile (sendTo with an id checks nothing).
    'ask to load the server': sendToRegistry(MCP_CHILD, ({ context, self }) => ({
      type: 'mcp.load',
      server: context.plan!.server,
      replyTo: self,
      requestId: LOAD_REQUEST,
    })),
    'ask to call the tool': sendToRegistry(MCP_CHILD, ({ context, self }) => ({
      type: 'mcp.callTool',
      server: context.plan!.server,
      tool: context.plan!.tool,
      arguments: context.plan!.arguments,
      replyTo: self,
      requestId: CALL_REQUEST,
    })),
    // Subscribing again replaces the subscription: sent on start and after every restore.
    'subscribe to the registry': sendToRegistry(MCP_CHILD, ({ self }) => ({ type: 'mcp.subscribe', replyTo: self })),
    'remember the server state': assign({
      serverSubstate: ({ context, event }) =>
        event.type === 'mcp.stateChanged' && event.server === context.plan?.server ? event.substate : context.serverSubstate,
    }),
    'note no reply': assign({ error: () => new Error(`The MCP registry did not reply within ${REPLY_TIMEOUT_MS / 1000} s.`) }),
    'remember the manifest': assign({
      manifest: ({ event }) => (event.type === 'mcp.loaded' ? event.manifest : undefined),
    }),
    'remember the result': assign({
      result: ({ event }) => (event.type === 'mcp.toolResult' ? event.result : undefined),
    }),
    'remember the failure': assign({ error: ({ event }) => (event.type === 'mcp.failed' ? event.error : undefined) }),
    'note the missing tool': assign({
      error: ({ context }) =>
        new Error(`MCP server "${context.plan?.server}" offers no tool "${context.plan?.tool}".`),
    }),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({ servers: input.servers, task: input.task }),
  invoke: {
    id: MCP_CHILD,
    systemId: MCP_CHILD,
    src: 'mcp',
    input: ({ context }): RegistryInput => ({ servers: context.servers }),
  },
  on: {
    'mcp.stateChanged': { actions: 'remember the server state' },
    'mcp.restored': { actions: 'subscribe to the registry' },
  },
  initial: 'thinking',
  states: {
    thinking: {
      // Here, not on the root: the root's entry runs before its invoke has started the registry.
      entry: 'subscribe to the registry',
      invoke: {
        src: 'think',
        input: ({ context }) => ({ task: context.task }),
        onDone: { target: 'loadingTools', actions: assign({ plan: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => event.error as Error }) },
      },
    },
    loadingTools: {
      entry: 'ask to load the server',
      after: { replyTimeout: { target: 'failed', actions: 'note no reply' } },
      on: {
        'mcp.restored': { target: 'loadingTools', reenter: true, actions: 'subscribe to the registry' },
        'mcp.loaded': [
          { guard: and(['answers my load', 'offers the planned tool']), target: 'calling', actions: 'remember the manifest' },
          { guard: 'answers my load', target: 'failed', actions: ['remember the manifest', 'note the missing tool'] },
        ],
        'mcp.failed': [
          { guard: 'is an answer from before the restore' },
          { guard: 'answers my load', target: 'failed', actions: 'remember the failure' },
        ],
      },
    },
    calling: {
      entry: 'ask to call the tool',
      after: { replyTimeout: { target: 'failed', actions: 'note no reply' } },
      on: {
        'mcp.restored': { target: 'calling', reenter: true, actions: 'subscribe to the registry' },
        'mcp.toolResult': { guard: 'answers my call', target: 'done', actions: 'remember the result' },
        'mcp.failed': [
          { guard: 'is an answer from before the restore' },
          { guard: 'answers my call', target: 'failed', actions: 'remember the failure' },
        ],
      },
    },
    // Not final: a final state would stop the registry at once. The agent keeps its
    // connections until its host disconnects them (`mcp.disconnectAll`) or stops it.
    done: { tags: 'finished' },
    failed: { tags: 'finished' },
  },
});

/** The agent with a registry built from `options` (the manager's: factories, logger, handlers, OAuth, client info). */
export function createAgent(options: RegistryLogicOptions) {
  return agentMachine.provide({
    actors: { mcp: createRegistryLogic(options) },
  });
}

type AgentActor = Actor<ReturnType<typeof createAgent>>;

/** Sends `mcp.disconnectAll` to the agent's registry and resolves once every server is disconnected. */
export async function disconnectAll(agent: AgentActor, sessions?: SessionTracker): Promise<void> {
  const registry = agent.system.get(MCP_CHILD) as AnyActorRef | undefined;
  if (!registry) return;
  registry.send({ type: 'mcp.disconnectAll' });
  const servers = Object.values((registry.getSnapshot() as { context: { actors: Record<string, ServerActorRef> } }).context.actors);
  await Promise.all(
    servers.map((server) => waitFor(server, (snapshot) => snapshot.matches({ disconnected: 'idle' }) || snapshot.status !== 'active')),
  );
  await sessions?.allSettled();
}

/** The demo's notes server, found through the package (so the example also runs as dist/examples/*.js or copied into a project). */
const NOTES_SERVER = join(dirname(createRequire(import.meta.url).resolve('mcp-statechart/package.json')), 'examples', 'servers', 'notes-server.mjs');

/** Runs the agent once against one stdio server and prints what it got. Returns the exit code. */
export async function main(argv: string[] = process.argv.slice(2), print: (line: string) => void = console.log): Promise<number> {
  const [command, ...args] = argv;
  const server: McpServerConfig = command ? { command, args } : { command: process.execPath, args: [NOTES_SERVER] };
  const task: AgentPlan = command
    ? { server: 'demo', tool: 'echo', arguments: { text: 'hello from an agent statechart' } }
    : { server: 'demo', tool: 'add_note', arguments: { title: 'agent', body: 'hello from an agent statechart' } };
  const sessions = new SessionTracker();
  const agent = createActor(createAgent({ logger: stderrLogger, sessions, clientInfo: { name: 'agent-statechart', version: '0.1.0' } }), {
    input: { servers: { demo: server }, task },
  });
  agent.start();
  try {
    const finished = await waitFor(agent, (snapshot) => snapshot.hasTag('finished'), { timeout: 60_000 });
    if (finished.matches('failed')) {
      print(`failed: ${finished.context.error?.message}`);
      return 1;
    }
    const texts = (finished.context.result?.content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : []));
    print(`done: ${texts.join('\n')}`);
    return 0;
  } finally {
    await disconnectAll(agent, sessions);
    agent.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}

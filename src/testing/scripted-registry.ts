/**
 * A stand-in for the registry that answers from a script: for testing a chart that invokes the
 * registry without starting servers. It speaks the registry protocol (machines/types.ts): it
 * answers `mcp.load`, `mcp.callTool` and `mcp.readResource` at `replyTo`, takes `mcp.subscribe` /
 * `mcp.unsubscribe`, and reports `mcp.stateChanged` / `mcp.manifestChanged` to subscribers and to
 * `actor.on(...)`. Delays run on the actor system's clock, so a `SimulatedClock` drives them.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { fromCallback, type AnyActorRef } from 'xstate';
import { McpServerError, type McpErrorCode } from '../../machines/errors.js';
import { diffManifests } from '../../machines/options.js';
import type { McpRegistryEmitted, McpRegistryInput, McpReply, McpServerManifest, PublicServerState } from '../../machines/types.js';

/** One scripted answer. `delayMs` (system clock) passes before it is given. */
export type ScriptedOutcome<T> =
  /** Answers with this value; `thenManifest` then replaces the server's manifest (as after `list_changed`). */
  | { answer: T; delayMs?: number; thenManifest?: McpServerManifest }
  /** Answers `mcp.failed` with an `McpServerError` of this code; the server stays as it was. */
  | { fail: McpErrorCode; message?: string; delayMs?: number }
  /** The server dies: the request fails with `CONNECTION_LOST` and the server goes to `error` (`failed`) until the next `mcp.load`. */
  | { crash: string; delayMs?: number };

export interface ScriptedServerScript {
  /** What a successful load answers. Default: a manifest with no tools. */
  manifest?: McpServerManifest;
  /** Outcomes of successive loads (a `fail` or `crash` is a failed connect). Default: always the manifest. */
  loads?: Array<ScriptedOutcome<McpServerManifest | undefined>>;
  /** Outcomes of successive calls of each tool. A tool not listed fails with `REQUEST_FAILED`. */
  tools?: Record<string, Array<ScriptedOutcome<CallToolResult>>>;
  /** Outcomes of successive reads of each URI. A URI not listed fails with `REQUEST_FAILED`. */
  resources?: Record<string, Array<ScriptedOutcome<ReadResourceResult['contents']>>>;
}

export interface RegistryScript {
  /** The configured servers by name; any other name is answered `UNKNOWN_SERVER`. */
  servers: Record<string, ScriptedServerScript>;
}

export interface ScriptedRegistry {
  /** The logic to provide for the registry your chart invokes, or to run with `createActor`. */
  logic: ReturnType<typeof scriptedRegistryLogic>;
  /** Every protocol event the registry received, in order (all actors of this logic). */
  received: McpRegistryInput[];
}

const EMPTY_MANIFEST: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };

/** The outcomes of one request kind: taken in order, the last one repeats. */
class Outcomes<T> {
  private next = 0;
  constructor(private readonly list: Array<ScriptedOutcome<T>>) {}
  take(): ScriptedOutcome<T> | undefined {
    const outcome = this.list[Math.min(this.next, this.list.length - 1)];
    this.next += 1;
    return outcome;
  }
}

interface ServerRun {
  state: PublicServerState;
  manifest: McpServerManifest;
  loads: Outcomes<McpServerManifest | undefined>;
  tools: Map<string, Outcomes<CallToolResult>>;
  resources: Map<string, Outcomes<ReadResourceResult['contents']>>;
}

type Due = { type: 'scripted.due'; id: string };

function scriptedRegistryLogic(script: RegistryScript, received: McpRegistryInput[]) {
  return fromCallback<McpRegistryInput | Due, unknown, McpRegistryEmitted>(({ receive, self, system, emit }) => {
    const runs = new Map<string, ServerRun>(
      Object.entries(script.servers).map(([name, server]) => [
        name,
        {
          state: 'disconnected',
          manifest: server.manifest ?? EMPTY_MANIFEST,
          loads: new Outcomes(server.loads ?? [{ answer: undefined }]),
          tools: new Map(Object.entries(server.tools ?? {}).map(([tool, outcomes]) => [tool, new Outcomes(outcomes)])),
          resources: new Map(Object.entries(server.resources ?? {}).map(([uri, outcomes]) => [uri, new Outcomes(outcomes)])),
        },
      ]),
    );
    const subscribers = new Set<AnyActorRef>();
    const due = new Map<string, () => void>();
    let nextDue = 0;

    const report = (event: McpRegistryEmitted) => {
      emit(event);
      for (const subscriber of subscribers) subscriber.send(event);
    };
    const enter = (server: string, run: ServerRun, state: PublicServerState, error?: Error) => {
      run.state = state;
      report({ type: 'mcp.stateChanged', server, state, substate: state === 'error' ? 'failed' : state, attempt: 0, ...(error ? { error } : {}) });
    };
    const later = (delayMs: number | undefined, act: () => void) => {
      if (!delayMs) return act();
      const id = `scripted-${nextDue++}`;
      due.set(id, act);
      const event: Due = { type: 'scripted.due', id };
      system.scheduler.schedule(self, self, event, delayMs, id);
    };
    const failed = (request: { replyTo: AnyActorRef; requestId: string; server: string }, code: McpErrorCode, message: string) =>
      request.replyTo.send({
        type: 'mcp.failed',
        requestId: request.requestId,
        server: request.server,
        error: new McpServerError(code, request.server, message),
      } satisfies McpReply);

    /** Runs one scripted outcome of a request on a connected server. */
    const settle = <T>(
      request: { replyTo: AnyActorRef; requestId: string; server: string },
      run: ServerRun,
      outcome: ScriptedOutcome<T> | undefined,
      what: string,
      reply: (value: T) => McpReply,
    ) => {
      if (!outcome) return failed(request, 'REQUEST_FAILED', `MCP server "${request.server}": no scripted answer for ${what}.`);
      later(outcome.delayMs, () => {
        if ('crash' in outcome) {
          const error = new McpServerError('CONNECTION_LOST', request.server, outcome.crash);
          enter(request.server, run, 'error', error);
          return request.replyTo.send({ type: 'mcp.failed', requestId: request.requestId, server: request.server, error } satisfies McpReply);
        }
        if ('fail' in outcome) return failed(request, outcome.fail, outcome.message ?? `MCP server "${request.server}": ${what} failed (scripted).`);
        request.replyTo.send(reply(outcome.answer));
        if (outcome.thenManifest) {
          const changes = diffManifests(run.manifest, outcome.thenManifest);
          run.manifest = outcome.thenManifest;
          report({ type: 'mcp.manifestChanged', server: request.server, manifest: run.manifest, changes });
        }
      });
    };

    receive((event) => {
      if (event.type === 'scripted.due') {
        const act = due.get(event.id);
        due.delete(event.id);
        return act?.();
      }
      received.push(event);
      switch (event.type) {
        case 'mcp.subscribe':
          subscribers.add(event.replyTo);
          return;
        case 'mcp.unsubscribe':
          subscribers.delete(event.replyTo);
          return;
        case 'mcp.disconnectAll':
          for (const [server, run] of runs) if (run.state !== 'disconnected') enter(server, run, 'disconnected');
          return;
        case 'mcp.disconnect': {
          const run = runs.get(event.server);
          if (run && run.state !== 'disconnected') enter(event.server, run, 'disconnected');
          return;
        }
        case 'mcp.load':
        case 'mcp.callTool':
        case 'mcp.readResource': {
          const run = runs.get(event.server);
          if (!run) return failed(event, 'UNKNOWN_SERVER', `Unknown MCP server "${event.server}" (not in the script).`);
          if (event.type === 'mcp.load') {
            if (run.state === 'connected') return event.replyTo.send({ type: 'mcp.loaded', requestId: event.requestId, server: event.server, manifest: run.manifest });
            enter(event.server, run, 'connecting');
            const outcome = run.loads.take()!;
            return later(outcome.delayMs, () => {
              if ('answer' in outcome) {
                run.manifest = outcome.answer ?? run.manifest;
                enter(event.server, run, 'connected');
                return event.replyTo.send({ type: 'mcp.loaded', requestId: event.requestId, server: event.server, manifest: run.manifest });
              }
              const error = new McpServerError('fail' in outcome ? outcome.fail : 'CONNECT_FAILED', event.server, 'fail' in outcome ? (outcome.message ?? 'connect failed (scripted)') : outcome.crash);
              enter(event.server, run, 'error', error);
              event.replyTo.send({ type: 'mcp.failed', requestId: event.requestId, server: event.server, error });
            });
          }
          if (run.state !== 'connected') return failed(event, 'NOT_CONNECTED', `MCP server "${event.server}" is not connected (state: ${run.state}).`);
          if (event.type === 'mcp.callTool') {
            return settle(event, run, run.tools.get(event.tool)?.take(), `tool "${event.tool}"`, (result) => ({
              type: 'mcp.toolResult',
              requestId: event.requestId,
              server: event.server,
              result,
            }));
          }
          return settle(event, run, run.resources.get(event.uri)?.take(), `resource "${event.uri}"`, (contents) => ({
            type: 'mcp.resource',
            requestId: event.requestId,
            server: event.server,
            contents,
          }));
        }
        default:
          return;
      }
    });
  });
}

/**
 * A registry that answers from `script`. Provide its `logic` where your chart invokes the
 * registry (`chart.provide({ actors: { mcp: registry.logic } })`); `received` records what
 * your chart sent it. A scripted `crash` does not reconnect by itself: the next `mcp.load` does.
 */
export function createScriptedRegistry(script: RegistryScript): ScriptedRegistry {
  const received: McpRegistryInput[] = [];
  return { logic: scriptedRegistryLogic(script, received), received };
}

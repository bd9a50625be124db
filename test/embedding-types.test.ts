/**
 * Types that guide a chart embedding the registry: `sendToRegistry` accepts only the registry's
 * public protocol, `McpReply` and `McpReport` are the unions a `replyTo` and a subscriber
 * receive, `mcp.failed` carries the package's own error, and the main entry exports all of it.
 * Each `@ts-expect-error` below fails `npm run typecheck` (tsconfig.json includes test/) if the
 * line it marks ever compiles.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { repositoryCompilerOptions } from '../scripts/api-report.js';
import { compileSnippets } from './support/compile-snippets.js';
import { createActor, setup, SimulatedClock } from 'xstate';
import {
  McpServerError,
  pureRegistryLogic,
  sendToRegistry,
  type McpErrorCode,
  type McpFinalReply,
  type McpManifestChangedEmitted,
  type McpProgressEvent,
  type McpRegistryInput,
  type McpReply,
  type McpReport,
  type McpStateChangedEmitted,
  type McpHostEmitted,
  type RegistryInput,
  type ServerActorRef,
} from 'mcp-statechart';
import { createScriptedRegistry } from 'mcp-statechart/testing';

/** A chart that asks its registry (`mcp`) with `sendToRegistry`: the actions under test go in `actions`. */
const embedding = <TActions extends Record<string, unknown>>(actions: TActions) => actions;

describe('sendToRegistry', () => {
  it('accepts every event of the registry protocol, built from the action arguments', () => {
    const chart = setup({
      types: { events: {} as McpReply, context: {} as { server: string } },
      actors: { mcp: pureRegistryLogic },
      actions: {
        load: sendToRegistry('mcp', ({ context, self }) => ({ type: 'mcp.load', server: context.server, replyTo: self, requestId: 'load' })),
        call: sendToRegistry('mcp', ({ self }) => ({ type: 'mcp.callTool', server: 'notes', tool: 'add', replyTo: self, requestId: 'call', progress: true })),
        subscribe: sendToRegistry('mcp', ({ self }) => ({ type: 'mcp.subscribe', replyTo: self, include: ['mcp.log'] })),
        disconnectAll: sendToRegistry('mcp', { type: 'mcp.disconnectAll' }),
      },
    });
    expectTypeOf(chart.createMachine).toBeFunction();
  });

  it('refuses a misspelt event type', () => {
    embedding({
      // @ts-expect-error `mcp.laod` is not a registry event
      wrong: sendToRegistry('mcp', ({ self }) => ({ type: 'mcp.laod', server: 'notes', replyTo: self, requestId: 'load' })),
    });
  });

  it('refuses a request without its requestId', () => {
    embedding({
      // @ts-expect-error `requestId` is missing: the reply could not be matched to the request
      missing: sendToRegistry('mcp', ({ self }) => ({ type: 'mcp.callTool', server: 'notes', tool: 'add', replyTo: self })),
    });
  });

  it('refuses a request without its replyTo', () => {
    embedding({
      // @ts-expect-error `replyTo` is missing: nobody would receive the reply
      missing: sendToRegistry('mcp', { type: 'mcp.load', server: 'notes', requestId: 'load' }),
    });
  });

  it("refuses the registry's internal events (what its server children report)", () => {
    embedding({
      internal: sendToRegistry('mcp', {
        // @ts-expect-error `mcp.server.*` events are between the registry and its children
        type: 'mcp.server.stateChanged',
        server: 'notes',
        state: 'connected',
        substate: 'connected.ready',
        attempt: 0,
      }),
    });
  });

  it('sends to the registry the chart invokes: the reply comes back to the chart', async () => {
    const agent = setup({
      types: { events: {} as McpReply, context: {} as { failure?: McpServerError } },
      actors: { mcp: pureRegistryLogic },
      actions: {
        'ask to load': sendToRegistry('mcp', ({ self }) => ({ type: 'mcp.load', server: 'nowhere', replyTo: self, requestId: 'load' })),
      },
    }).createMachine({
      context: {},
      invoke: { id: 'mcp', src: 'mcp', input: {} },
      entry: 'ask to load',
      on: {
        'mcp.failed': {
          actions: ({ event }) => {
            // No cast: the package's own error, its `code` one of McpErrorCode.
            const code: McpErrorCode = event.error.code;
            failures.push(code);
          },
        },
      },
    });
    const failures: McpErrorCode[] = [];
    const registry = createScriptedRegistry({ servers: { notes: {} } });
    const actor = createActor(agent.provide({ actors: { mcp: registry.logic } }), { clock: new SimulatedClock() }).start();
    await new Promise((done) => setImmediate(done));
    actor.stop();
    expect(registry.received.map((event) => event.type)).toEqual(['mcp.load']);
    expect(failures).toEqual(['UNKNOWN_SERVER']);
  });
});

describe('the unions an embedder receives', () => {
  it('McpReply is what a replyTo receives: every final reply and mcp.progress, by type', () => {
    expectTypeOf<McpReply>().toEqualTypeOf<McpFinalReply | McpProgressEvent>();
    expectTypeOf<McpReply['type']>().toEqualTypeOf<
      'mcp.loaded' | 'mcp.toolResult' | 'mcp.resource' | 'mcp.prompt' | 'mcp.resourceSubscribed' | 'mcp.resourceUnsubscribed' | 'mcp.completion' | 'mcp.failed' | 'mcp.progress'
    >();
    expectTypeOf<Extract<McpReply, { type: 'mcp.progress' }>['progress']>().toEqualTypeOf<number>();
  });

  it('McpReport is what a subscriber receives: state and manifest changes, logs and resource updates, by type', () => {
    expectTypeOf<McpReport>().toEqualTypeOf<McpStateChangedEmitted | McpManifestChangedEmitted | McpHostEmitted>();
    expectTypeOf<McpReport['type']>().toEqualTypeOf<'mcp.stateChanged' | 'mcp.manifestChanged' | 'mcp.log' | 'mcp.resourceUpdated'>();
  });

  it("mcp.failed carries the package's own error, so its code reads without a cast", () => {
    expectTypeOf<Extract<McpReply, { type: 'mcp.failed' }>['error']>().toEqualTypeOf<McpServerError>();
    expectTypeOf<Extract<McpReply, { type: 'mcp.failed' }>['error']['code']>().toEqualTypeOf<McpErrorCode>();
    expectTypeOf<NonNullable<McpStateChangedEmitted['error']>>().toEqualTypeOf<McpServerError>();
  });

  it('the main entry exports what an embedder names: the registry input, server refs, the protocol', () => {
    expectTypeOf<RegistryInput>().toHaveProperty('servers');
    expectTypeOf<ServerActorRef>().toHaveProperty('send');
    expectTypeOf<'mcp.load' | 'mcp.callTool' | 'mcp.subscribe'>().toMatchTypeOf<McpRegistryInput['type']>();
    expectTypeOf<Extract<McpRegistryInput['type'], `mcp.server.${string}`>>().toBeNever();
    expectTypeOf(sendToRegistry).toBeFunction();
  });
});

describe('a project with exactOptionalPropertyTypes', () => {
  it('compiles the example agent chart as it is: an optional request field takes a value that may be undefined', () => {
    const example = readFileSync(new URL('../examples/agent-statechart.ts', import.meta.url), 'utf8');
    const path = new URL('../examples/agent-statechart.exact-optional.ts', import.meta.url).pathname;
    const diagnostics = compileSnippets(new Map([[path, example]]), { options: { ...repositoryCompilerOptions(), exactOptionalPropertyTypes: true, noEmit: true } });
    expect(diagnostics.get(path)!.map(({ line, message }) => `${line}: ${message.slice(0, 200)}`)).toEqual([]);
  }, 60_000);
});


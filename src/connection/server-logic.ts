import { fromPromise } from 'xstate';
import { serverMachine, type ConnectInput } from '../../machines/server.machine.js';
import type { McpSession } from '../../machines/types.js';
import { openSession, type ConnectionDeps } from './open-session.js';
import { sessionActor } from './session-actor.js';

/** The server chart with its effects: connect through the SDK, run the session, close it. */
export function createServerLogic(deps: ConnectionDeps) {
  return serverMachine.provide({
    actors: {
      connect: fromPromise<McpSession, ConnectInput>(({ input, signal }) => openSession({ ...input, signal }, deps)),
      closeSession: fromPromise<void, { session?: McpSession }>(async ({ input }) => input.session?.close()),
      session: sessionActor,
    },
  });
}

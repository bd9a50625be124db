import { fromCallback, fromPromise } from 'xstate';
import {
  serverMachine,
  type ConnectInput,
  type RequestInput,
  type RequestOutput,
  type ServerEvent,
} from '../../machines/server.machine.js';
import type { McpSession } from '../../machines/types.js';
import { openSession, type ConnectionDeps } from './open-session.js';

/** The server chart with its effects: connect through the SDK, watch the session, run requests, close. */
export function createServerLogic(deps: ConnectionDeps) {
  return serverMachine.provide({
    actors: {
      connect: fromPromise<McpSession, ConnectInput>(({ input, signal }) => openSession({ ...input, signal }, deps)),
      closeSession: fromPromise<void, { session?: McpSession }>(async ({ input }) => input.session?.close()),
      watchSession: fromCallback<ServerEvent, { session: McpSession }>(({ input, sendBack }) => {
        const unwatch = input.session.watch({
          onLost: (error, sessionExpired) => sendBack({ type: 'CONNECTION_LOST', error, sessionExpired }),
          onManifest: (manifest) => sendBack({ type: 'MANIFEST_CHANGED', manifest }),
        });
        return () => {
          unwatch();
          // Leaving `connected` by any path, including the actor being stopped, ends the session.
          void input.session.close();
        };
      }),
      request: fromPromise<RequestOutput, RequestInput>(({ input, signal }) =>
        input.request.kind === 'tool'
          ? input.session.callTool(input.request.tool, input.request.arguments, { signal, timeoutMs: input.request.timeoutMs })
          : input.session.readResource(input.request.uri, { signal }),
      ),
    },
  });
}

import { registryMachine, crashedServerName } from '../machines/registry.machine.js';
import { createServerLogic, type ServerLogicDeps } from './connection/server-logic.js';

/**
 * The registry chart with every effect provided: spawn it in any chart (`invoke: { src:
 * createRegistryLogic(deps) }`) or run it with `createActor`. McpConnectionManager uses it too.
 */
export function createRegistryLogic(deps: ServerLogicDeps) {
  return registryMachine.provide({
    actors: { server: createServerLogic(deps) },
    actions: {
      'close sessions of crashed server': ({ event }) => {
        const server = crashedServerName(event);
        if (server !== undefined) void deps.tracker.closeServer(server);
      },
    },
  });
}

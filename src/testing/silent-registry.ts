import { registryMachine } from '../../machines/registry.machine.js';
import { asPublicRegistry, type RegistryLogic } from '../registry-logic.js';

/** Every action of the registry chart, as one that does nothing. */
const noActions = Object.fromEntries(Object.keys(registryMachine.implementations.actions).map((name) => [name, () => {}]));

/**
 * The registry chart with every action turned off: it takes every event of the protocol and
 * answers none, spawns nothing and reports nothing. For replaying model paths of your own chart
 * (`replayPath`), whose replies come from the path (`registryReplies`), not from a registry.
 * Typed `RegistryLogic`, so it can be provided where your chart declared the registry.
 */
export const silentRegistryLogic: RegistryLogic = asPublicRegistry(registryMachine.provide({ actions: noActions }));

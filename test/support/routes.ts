import type { McpConnectionManagerOptions } from '../../src/index.js';

/**
 * The two request routes a manager takes: `direct` (a call goes straight to the connected
 * server's session actor) and `registry` (every call is a protocol event to the registry, which
 * hands it to a connected server's session actor, or to the server chart otherwise: what
 * embedders use, and what the manager does whenever an inspector is attached).
 */
export const ROUTES = ['direct', 'registry'] as const;
export type Route = (typeof ROUTES)[number];

/** Manager options that select the route: an attached inspector makes every call take the event route. */
export function routeOptions(route: Route): Pick<McpConnectionManagerOptions, 'inspect'> {
  return route === 'registry' ? { inspect: () => {} } : {};
}

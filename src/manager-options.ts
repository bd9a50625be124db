/**
 * The manager's constructor options as plain JavaScript (or code moved from LangChain's
 * MultiServerMCPClient) may give them. A key the constructor does not read was ignored silently:
 * `new McpConnectionManager({ mcpServers })` made a manager with no servers, and the first
 * `connect('notes')` said the server was unknown, far from the cause.
 */
import { isPlainObject } from '../machines/request-shape.js';
import { quoted } from '../machines/control-characters.js';
import type { McpConnectOptions } from '../machines/types.js';

/** Where each server definition goes instead: keys a config file or MultiServerMCPClient takes the servers under. */
const SERVER_KEYS = new Set(['mcpServers', 'servers']);

const CONNECT_OPTION_KEYS = Object.keys({
  idleTimeoutMs: true,
  autoReconnect: true,
  maxRetries: true,
  isConfigError: true,
  requestTimeoutMs: true,
  requestTimeoutSource: true,
  connectTimeoutMs: true,
  healthyAfterMs: true,
  backoff: true,
} satisfies Record<keyof McpConnectOptions, true>);

/** Why these constructor options cannot be taken as given (`known`: every key the constructor reads), or undefined. */
export function invalidManagerOptionsError(options: object, known: readonly string[]): TypeError | undefined {
  if (!isPlainObject(options)) return undefined;
  const unknown = Object.keys(options).find((key) => !known.includes(key));
  if (unknown === undefined) return undefined;
  const method = 'new McpConnectionManager';
  if (SERVER_KEYS.has(unknown)) {
    return new TypeError(
      `${method}: the servers are not a constructor option (${quoted(unknown)} would be ignored): create the manager, then pass them by name to manager.configure(servers), e.g. manager.configure({ notes: { command, args } }), or connect one with manager.connect(name, config).`,
    );
  }
  if (CONNECT_OPTION_KEYS.includes(unknown)) {
    return new TypeError(`${method}: ${quoted(unknown)} is a connect option: put it inside defaults ({ defaults: { ${unknown}: … } }) for every server, or pass it per server to manager.configure(servers, options).`);
  }
  return new TypeError(`${method}: ${quoted(unknown)} is not an option (it would be ignored). The options are: ${[...known].sort().join(', ')}.`);
}

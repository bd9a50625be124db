/**
 * Options as plain JavaScript (or code moved from LangChain's MultiServerMCPClient) may give them.
 * A key that is not read was ignored silently: `new McpConnectionManager({ mcpServers })` made a
 * manager with no servers, and `createLoaderTools({ manager, servers, permission })` applied no
 * deny list.
 */
import { isPlainObject } from '../machines/request-shape.js';
import { quoted } from '../machines/control-characters.js';
import type { McpConnectOptions } from '../machines/types.js';

/**
 * The first key of `options` not in `known`, as a TypeError naming where it goes instead
 * (`instead`: that sentence for a key given by mistake, or undefined), else the options there are.
 */
export function unknownOptionError(method: string, options: object, known: readonly string[], instead: (key: string) => string | undefined): TypeError | undefined {
  if (!isPlainObject(options)) return undefined;
  const unknown = Object.keys(options).find((key) => !known.includes(key));
  if (unknown === undefined) return undefined;
  return new TypeError(`${method}: ${instead(unknown) ?? `${quoted(unknown)} is not an option (it would be ignored). The options are: ${[...known].sort().join(', ')}.`}`);
}

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
  return unknownOptionError('new McpConnectionManager', options, known, (key) => {
    if (SERVER_KEYS.has(key)) {
      return `the servers are not a constructor option (${quoted(key)} would be ignored): create the manager, then pass them by name to manager.configure(servers), e.g. manager.configure({ notes: { command, args } }), or connect one with manager.connect(name, config).`;
    }
    if (CONNECT_OPTION_KEYS.includes(key)) {
      return `${quoted(key)} is a connect option: put it inside defaults ({ defaults: { ${key}: … } }) for every server, or pass it per server to manager.configure(servers, options).`;
    }
    return undefined;
  });
}

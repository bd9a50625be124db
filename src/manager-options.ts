/**
 * Options as plain JavaScript (or code moved from LangChain's MultiServerMCPClient) may give them.
 * A key that is not read was ignored silently: `new McpConnectionManager({ mcpServers })` made a
 * manager with no servers, and `createLoaderTools({ manager, servers, permission })` applied no
 * deny list.
 */
import { describeValue, isPlainObject } from '../machines/request-shape.js';
import { quoted } from '../machines/control-characters.js';
import type { McpConnectOptions } from '../machines/types.js';
import { brokenConnectOption } from './connection/option-problems.js';

/**
 * The first key of `options` not in `known`, as a TypeError naming where it goes instead
 * (`instead`: that sentence for a key given by mistake, or undefined), else the options there are.
 */
export function unknownOptionError(
  method: string,
  options: object,
  known: readonly string[],
  instead: (key: string) => string | undefined,
  named: (key: string) => string = quoted,
): TypeError | undefined {
  if (!isPlainObject(options)) return undefined;
  const unknown = Object.keys(options).find((key) => !known.includes(key));
  if (unknown === undefined) return undefined;
  const meant = known.find((key) => key.toLowerCase() === unknown.toLowerCase() || key.toLowerCase() === `${unknown.toLowerCase()}ms`);
  const guess = meant === undefined ? '' : ` Did you mean ${quoted(meant)}?`;
  return new TypeError(`${method}: ${instead(unknown) ?? `${named(unknown)} is not an option (it would be ignored).${guess} The options are: ${[...known].sort().join(', ')}.`}`);
}

/** No other place a misspelt key belongs. */
export const noOtherPlace = (): undefined => undefined;

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

/**
 * A key of connect options (`where`: the path the message names their keys under, `defaults` or
 * `options.notes`) that no attempt reads (`idleTimeout`), which would be ignored; or options that
 * are not an object. Undefined when there is none.
 */
function unknownConnectOptionError(method: string, where: string, options: unknown): TypeError | undefined {
  if (options === undefined) return undefined;
  if (!isPlainObject(options)) return new TypeError(`${method}: ${where} must be an object of connect options, not ${describeValue(options)}.`);
  return unknownOptionError(method, options as object, CONNECT_OPTION_KEYS, noOtherPlace, (key) => quoted(`${where}.${key}`));
}

/**
 * Why the manager's `defaults` cannot be taken, or undefined: a key no attempt reads, or a value
 * no attempt could honour, by the rules a server's own options are checked with at connect (where
 * a value in `defaults` was refused as if the server entry held it).
 */
function invalidDefaultsError(defaults: McpConnectOptions | undefined): TypeError | undefined {
  const method = 'new McpConnectionManager';
  const unknown = unknownConnectOptionError(method, 'defaults', defaults);
  if (unknown || defaults === undefined) return unknown;
  const broken = brokenConnectOption(defaults, 'some given');
  return broken && new TypeError(`${method}: defaults.${broken.option} ${broken.problem}.`);
}

/** Why connect options of one server (`connect`'s third argument) cannot be taken, or undefined. */
export function invalidConnectOptionsError(method: string, options: unknown): TypeError | undefined {
  return unknownConnectOptionError(method, 'options', options);
}

/** Why connect options by server name (`configure`'s second argument) cannot be taken, or undefined. */
export function invalidServersOptionsError(method: string, options: unknown): TypeError | undefined {
  if (!isPlainObject(options)) return undefined;
  for (const [name, given] of Object.entries(options as Record<string, unknown>)) {
    const invalid = unknownConnectOptionError(method, `options.${name}`, given);
    if (invalid) return invalid;
  }
  return undefined;
}

/** Why these constructor options cannot be taken as given (`known`: every key the constructor reads), or undefined. */
export function invalidManagerOptionsError(options: object, known: readonly string[]): TypeError | undefined {
  const unknown = unknownOptionError('new McpConnectionManager', options, known, (key) => {
    if (SERVER_KEYS.has(key)) {
      return `the servers are not a constructor option (${quoted(key)} would be ignored): create the manager, then pass them by name to manager.configure(servers), e.g. manager.configure({ notes: { command, args } }), or connect one with manager.connect(name, config).`;
    }
    if (CONNECT_OPTION_KEYS.includes(key)) {
      return `${quoted(key)} is a connect option: put it inside defaults ({ defaults: { ${key}: … } }) for every server, or pass it per server to manager.configure(servers, options).`;
    }
    return undefined;
  });
  return unknown ?? invalidDefaultsError((options as { defaults?: McpConnectOptions }).defaults);
}

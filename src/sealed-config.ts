/**
 * Server definitions without their secrets, for the charts. The registry and its server actors
 * hold each server as a *sealed* definition: the entry as its file writes it (`${VAR}` references
 * unexpanded), with every `env` and `headers` value and OAuth `clientSecret` written literally,
 * and every credential written literally in `url` and `args`, replaced by SEALED. So actor context, events between the actors, connect inputs and persisted
 * snapshots hold no secret value, and an inspector sees none whatever it is given.
 *
 * The config a sealed definition stands for stays in a table of this process (`rememberSealed`),
 * which the connect effect reads (`unsealServerConfig`). A definition restored from a snapshot is
 * not in it: its `${VAR}`s are expanded again from the variables the registry was given, and a
 * value written literally is not there to take; configuring the server again hands it back.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { McpServerConfig, McpServerEntry } from '../machines/types.js';
import { nameRecord } from '../machines/name-record.js';
import { quoted } from '../machines/control-characters.js';
import { copyConfig, expandConfig } from './config/expand-config.js';
import type { VariableSource } from './config/expand-variables.js';
import { isJsonObject } from './config/null-proto.js';
import { ConfigInvalidError } from './errors/config-invalid.js';
import { literalSecretsFound, literalSecretsOf } from './literal-secrets.js';
import { unreadablePart } from './readable-data.js';
import { expandedOfSealed, rememberSealed, writtenDefinitionOf } from './redact.js';
import { hideLiteralParts, writtenSecretHider } from './written-credentials.js';

/** What a sealed definition shows in place of a value written literally in `env`, `headers` or `oauth.clientSecret`. */
export const SEALED = '[sealed]';

/**
 * The field of a sealed definition that changes when the values it hides change (an edited token,
 * a variable set to something else), so a new definition is told from the old one and reconnects.
 * A hash keyed by a random prefix that never leaves this process, so it tells nothing about the
 * values (a prefix rather than an HMAC: a third of the time, and nothing here is a signature).
 */
export const SECRETS_DIGEST_FIELD = 'sealedSecrets';
const digestKey = randomBytes(32);

/**
 * Kept as written: a value that is only references (`${TOKEN}`), with at most an auth scheme
 * before them (`Bearer ${TOKEN}`) or punctuation between them, which `hideLiteralParts` leaves as
 * it is. Anything else written there may be a secret.
 */
function sealValue(value: unknown): unknown {
  return typeof value === 'string' && hideLiteralParts(value, SEALED) === value ? value : SEALED;
}

function sealValues(values: unknown): unknown {
  if (!isJsonObject(values)) return values;
  const sealed = nameRecord<unknown>();
  for (const key of Object.keys(values)) sealed[key] = sealValue(values[key]);
  return sealed;
}

/**
 * Credentials written in `url` and `args` (src/literal-secrets.ts says which: a URL's query and
 * password, the value after `--token`, `NAME=value`, …) become SEALED where they stand; of one
 * that reads a `${VAR}` only what is written literally does (`--token [sealed]${X}`), the variable
 * being its secret (src/written-credentials.ts). Shorter ones are left alone, as `secretsOf`
 * leaves them ("1", "dev" are not credentials).
 */
function sealLiteralCredentials(definition: McpServerEntry): void {
  const url = typeof definition.url === 'string' ? definition.url : undefined;
  const args = Array.isArray(definition.args) ? definition.args : undefined;
  const found = literalSecretsFound({ url, args });
  if (found.length === 0) return;
  const seal = writtenSecretHider(found.map((credential) => credential.value), found, SEALED);
  if (url !== undefined) definition.url = seal(url);
  if (args !== undefined) definition.args = args.map(seal);
}

/**
 * Nothing in it to hide: no env, headers or OAuth entry, no `${VAR}` took a value, and no
 * credential is written in its url or args. The usual case, and kept cheap for 10,000 servers.
 */
function hasNothingToSeal(config: McpServerEntry): boolean {
  return (
    config.env === undefined &&
    config.headers === undefined &&
    config.oauth === undefined &&
    writtenDefinitionOf(config) === undefined &&
    (config.url === undefined && config.args === undefined ? true : literalSecretsOf(config).length === 0)
  );
}

/** A definition the charts may hold as it is: sealed in this process, or with nothing to hide. */
function isSealed(config: McpServerEntry): boolean {
  return hasNothingToSeal(config) || expandedOfSealed(config) !== undefined;
}

/**
 * The sealed definition of `config` (see the top of this file): a config read by discovery is
 * sealed from the entry as its file writes it, any other from itself. A sealed definition is
 * returned as it is, and so is a config with nothing to hide (it is its own sealed definition,
 * and costs nothing: no copy, no table entry).
 *
 * @example
 * ```ts
 * import { McpConnectionManager, sealServerConfig } from 'mcp-statechart';
 *
 * const manager = new McpConnectionManager();
 * // The token stays out of snapshots, inspector events and logs; the transport still sends it.
 * manager.configure({ api: sealServerConfig({ url: 'https://example.com/mcp', headers: { Authorization: `Bearer ${process.env.API_TOKEN}` } }) });
 * ```
 */
export function sealServerConfig(config: McpServerConfig): McpServerEntry {
  if (isSealed(config)) return config;
  const sealed = copyConfig(writtenDefinitionOf(config) ?? config);
  sealLiteralCredentials(sealed);
  if (sealed.env !== undefined) sealed.env = sealValues(sealed.env) as Record<string, string>;
  if (sealed.headers !== undefined) sealed.headers = sealValues(sealed.headers) as Record<string, string>;
  if (isJsonObject(sealed.oauth) && sealed.oauth.clientSecret !== undefined) {
    sealed.oauth = nameRecord(sealed.oauth, { clientSecret: sealValue(sealed.oauth.clientSecret) });
  }
  const whole = JSON.stringify(config);
  if (JSON.stringify(sealed) === whole) {
    // Nothing was hidden after all (say, env values made only of references and never expanded).
    rememberSealed(config, config);
    return config;
  }
  sealed[SECRETS_DIGEST_FIELD] = createHash('sha256').update(digestKey).update(whole).digest('hex').slice(0, 32);
  rememberSealed(sealed, config);
  return sealed;
}

/**
 * `sealServerConfig` for every server of a record (a new record, unless every one was sealed
 * already). A definition that cannot be read as data throws a TypeError of `method` that names its
 * server (`unreadablePart`), before the registry takes it.
 */
export function sealServers(servers: Record<string, McpServerEntry>, method: string): Record<string, McpServerEntry> {
  let allSealed = true;
  for (const name of Object.keys(servers)) {
    const unreadable = unreadablePart(servers, name);
    if (unreadable !== undefined) {
      throw new TypeError(`${method}: the definition of server ${quoted(name)} cannot be read as data (${unreadable}): give plain values.`);
    }
    if (allSealed && !isSealed(servers[name]!)) allSealed = false;
  }
  if (allSealed) return servers;
  const sealed = nameRecord<McpServerEntry>();
  for (const name of Object.keys(servers)) sealed[name] = sealServerConfig(servers[name]!);
  return sealed;
}

/** What a restored definition's digest says: the values it stood for are not in this process. */
const RESTORED_DIGEST = 'restored';

/**
 * The definitions of a registry restored from a snapshot: a digest becomes RESTORED_DIGEST, since
 * the values it stood for are not here. So the same definition configured again (`mcp.configure`)
 * differs from the restored one and reaches its server actor, which then connects with its values.
 */
export function restoredDefinitions(servers: Record<string, McpServerEntry>): Record<string, McpServerEntry> {
  const restored = nameRecord<McpServerEntry>();
  for (const name of Object.keys(servers)) {
    const definition = servers[name]!;
    restored[name] = definition[SECRETS_DIGEST_FIELD] === undefined ? definition : { ...definition, [SECRETS_DIGEST_FIELD]: RESTORED_DIGEST };
  }
  return restored;
}

/** The fields of a restored definition whose values were written literally, and so are not in it. */
function sealedFields(definition: McpServerEntry): string[] {
  const fields: string[] = [];
  for (const map of ['env', 'headers'] as const) {
    const values = definition[map];
    if (isJsonObject(values)) for (const key of Object.keys(values)) if (values[key] === SEALED) fields.push(`${map}.${key}`);
  }
  if (isJsonObject(definition.oauth) && definition.oauth.clientSecret === SEALED) fields.push('oauth.clientSecret');
  if (typeof definition.url === 'string' && definition.url.includes(SEALED)) fields.push('url');
  definition.args?.forEach((arg, index) => {
    if (typeof arg === 'string' && arg.includes(SEALED)) fields.push(`args[${index}]`);
  });
  return fields;
}

/**
 * The config to connect with. A definition sealed in this process gives back the config it stands
 * for, one that hides nothing is the config; one restored from a snapshot is expanded again from `variables` (its `${VAR}`s), and fails
 * as a config error naming the fields whose values were written literally and so were not kept.
 */
export function unsealServerConfig(server: string, definition: McpServerEntry, variables: VariableSource): McpServerEntry {
  const expanded = expandedOfSealed(definition);
  if (expanded !== undefined) return expanded;
  // Without a digest, nothing was hidden: the definition is the config.
  if (definition[SECRETS_DIGEST_FIELD] === undefined) return definition;
  const missing = sealedFields(definition);
  if (missing.length > 0) {
    throw new ConfigInvalidError(
      server,
      missing[0]!,
      `${missing.join(', ')} ${missing.length === 1 ? 'was' : 'were'} written literally, and a persisted snapshot does not hold such values: ` +
        'after restoring, send mcp.configure with the server\'s definition again (from discoverMcpServers, or your own)',
    );
  }
  const { [SECRETS_DIGEST_FIELD]: _digest, ...written } = definition;
  const config = copyConfig(written);
  expandConfig(config, variables);
  return config;
}

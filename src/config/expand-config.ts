/**
 * `${VAR}` expansion of a whole server entry: what discovery does to each entry it reads, and what
 * a restored registry does again to a definition it kept unexpanded (src/sealed-config.ts).
 */
import type { McpServerEntry } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import { rememberExpandedValues } from '../redact.js';
import { expandVariables, type VariableSource } from './expand-variables.js';
import { isJsonObject } from './null-proto.js';

/** Prototype-free copies of the entry and of its maps, so no key written in the file is special. */
export function copyConfig(raw: Record<string, unknown>): McpServerEntry {
  const config = nameRecord(raw) as McpServerEntry;
  if (Array.isArray(config.args)) config.args = [...config.args];
  if (isJsonObject(config.env)) config.env = nameRecord(config.env);
  if (isJsonObject(config.headers)) config.headers = nameRecord(config.headers);
  return config;
}

/**
 * Expands `${VAR}` in place in command, args, env values, url, header values and the strings of
 * `oauth`, and remembers the values taken from `env` as the entry's secrets (`secretsOf`).
 * `unset`: each unset variable (without a default) once, with the first field that used it;
 * `changed`: whether any reference was there to expand.
 */
export function expandConfig(config: McpServerEntry, env: VariableSource): { unset: Map<string, string>; changed: boolean } {
  const unset = new Map<string, string>();
  const substituted: string[] = [];
  let changed = false;
  const expand = (value: string, field: string): string => {
    const result = expandVariables(value, env);
    if (result.value !== value) changed = true;
    for (const variable of result.unset) if (!unset.has(variable)) unset.set(variable, field);
    for (const secret of result.substituted) substituted.push(secret);
    return result.value;
  };
  if (config.command !== undefined) config.command = expand(config.command, 'command');
  if (config.args) config.args = config.args.map((arg, index) => expand(arg, `args[${index}]`));
  if (config.url !== undefined) config.url = expand(config.url, 'url');
  for (const [mapName, map] of [['env', config.env] as const, ['headers', config.headers] as const]) {
    if (map) for (const key of Object.keys(map)) map[key] = expand(map[key] as string, `${mapName}.${key}`);
  }
  // The `oauth` entry (clientId, clientSecret, scopes…) is checked where it is used (src/auth/oauth-config.ts);
  // its strings expand here like every other field, so a secret can live in the environment.
  if (isJsonObject(config.oauth)) {
    const oauth = nameRecord(config.oauth);
    for (const key of Object.keys(oauth)) {
      const value = oauth[key];
      if (typeof value === 'string') oauth[key] = expand(value, `oauth.${key}`);
      else if (Array.isArray(value)) {
        oauth[key] = value.map((item: unknown, index) => (typeof item === 'string' ? expand(item, `oauth.${key}[${index}]`) : item));
      }
    }
    config.oauth = oauth;
  }
  if (substituted.length > 0) rememberExpandedValues(config, substituted);
  return { unset, changed };
}

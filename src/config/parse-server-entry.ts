/**
 * One `mcpServers` entry → a DiscoveredServer, or the problems that kept it out.
 * Order matters: check field types, pick the transport, expand `${VAR}`s, then check what the
 * transport needs (on expanded values).
 */
import path from 'node:path';
import type { z } from 'zod';
import type { McpServerConfig, McpTransportKind } from '../../machines/types.js';
import { inferTransport, parseTransport } from '../../machines/options.js';
import { rememberExpandedValues } from '../redact.js';
import { expandVariables, type VariableSource } from './expand-variables.js';
import { isJsonObject, ownValue } from './null-proto.js';
import { nameRecord } from '../../machines/name-record.js';
import { fieldName, remoteRequirements, serverEntryShape, stdioRequirements } from './server-schema.js';
import type { ConfigProblem, ConfigScope, DiscoveredServer } from './types.js';

export interface EntryContext {
  file: string;
  scope: ConfigScope;
  env: VariableSource;
}

export interface EntryOutcome {
  server?: DiscoveredServer;
  problems: ConfigProblem[];
}

const DECLARED_TRANSPORT_FIELDS = ['type', 'transport', 'transportType'] as const;

export function parseServerEntry(name: string, raw: unknown, context: EntryContext): EntryOutcome {
  const skip = (message: string, field?: string): EntryOutcome => ({
    problems: [problem(context, 'error', name, field, `server "${name}" skipped: ${message}`)],
  });

  if (name === '') return skip('a server needs a non-empty name');
  if (!isJsonObject(raw)) return skip('the entry must be a JSON object');

  const shape = serverEntryShape.safeParse(raw);
  if (!shape.success) return { problems: issuesToProblems(shape.error.issues, name, context) };

  // zod's output is not used: it would drop an own `__proto__` key and give objects a prototype.
  const config = copyConfig(raw);
  const problems: ConfigProblem[] = [];

  const transport = inferTransport(config);
  if (transport === undefined) {
    return skip('cannot tell the transport: give "command" (stdio) or "url" (http), or set "type"');
  }
  problems.push(...ignoredTransportDeclarations(config, transport, name, context));

  const disabled = config.disabled === true;
  // Kept before expansion: an approval prompt shows what the file says, never what a variable holds.
  const written = copyConfig(raw);
  const unset = expandConfig(config, context.env);
  // A disabled server is never started, so its missing variables (often the reason it is
  // disabled) are not worth a warning.
  if (!disabled) {
    for (const [variable, field] of unset) {
      problems.push(
        problem(
          context,
          'warning',
          name,
          field,
          `server "${name}": variable ${variable} is not set (used in "${field}"); it expands to an empty string`,
        ),
      );
    }
  }

  const requirements = transport === 'stdio' ? stdioRequirements : remoteRequirements;
  const needs = requirements.safeParse(config);
  if (!needs.success) return { problems: [...problems, ...issuesToProblems(needs.error.issues, name, context)] };
  // `node server.mjs` in a project's file means the project's server.mjs, wherever the command
  // that reads the file was started: a project's stdio server runs in the project folder.
  if (transport === 'stdio' && context.scope === 'project') config.cwd = path.resolve(path.dirname(context.file), config.cwd ?? '.');

  const server: DiscoveredServer = {
    name,
    config,
    transport,
    scope: context.scope,
    source: context.file,
    disabled,
    written,
  };
  if (typeof config.description === 'string') server.description = config.description;
  return { server, problems };
}

/** Prototype-free copies of the entry and of its maps, so no key written in the file is special. */
function copyConfig(raw: Record<string, unknown>): McpServerConfig {
  const config = nameRecord(raw) as McpServerConfig;
  if (Array.isArray(config.args)) config.args = [...config.args];
  if (isJsonObject(config.env)) config.env = nameRecord(config.env);
  if (isJsonObject(config.headers)) config.headers = nameRecord(config.headers);
  return config;
}

/**
 * Expands `${VAR}` in place in command, args, env values, url, header values and the strings of `oauth`.
 * Returns each unset variable (without a default) once, with the first field that used it.
 */
function expandConfig(config: McpServerConfig, env: VariableSource): Map<string, string> {
  const unset = new Map<string, string>();
  const substituted: string[] = [];
  const expand = (value: string, field: string): string => {
    const result = expandVariables(value, env);
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
  return unset;
}

/** `type` wins over `transport`, which wins over `transportType`; say so when a later one disagrees. */
function ignoredTransportDeclarations(
  config: McpServerConfig,
  chosen: McpTransportKind,
  name: string,
  context: EntryContext,
): ConfigProblem[] {
  const declared = DECLARED_TRANSPORT_FIELDS.filter((field) => typeof ownValue(config, field) === 'string');
  const [winner, ...others] = declared;
  return others
    .filter((field) => parseTransport(config[field] as string) !== chosen)
    .map((field) =>
      problem(
        context,
        'warning',
        name,
        field,
        `server "${name}": "${field}" disagrees with "${winner}" and is ignored; the transport is ${chosen}`,
      ),
    );
}

function issuesToProblems(issues: z.core.$ZodIssue[], name: string, context: EntryContext): ConfigProblem[] {
  return issues.map((issue) => {
    const field = fieldName(issue.path);
    if (field === '') return problem(context, 'error', name, undefined, `server "${name}" skipped: ${issue.message}`);
    return problem(context, 'error', name, field, `server "${name}" skipped: "${field}" ${issue.message}`);
  });
}

function problem(
  context: EntryContext,
  severity: ConfigProblem['severity'],
  server: string,
  field: string | undefined,
  message: string,
): ConfigProblem {
  const result: ConfigProblem = { severity, file: context.file, server, message };
  if (field !== undefined) result.field = field;
  return result;
}

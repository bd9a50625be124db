/**
 * One `mcpServers` entry → a DiscoveredServer, or the problems that kept it out.
 * Order matters: check field types, pick the transport, expand `${VAR}`s, then check what the
 * transport needs (on expanded values).
 */
import path from 'node:path';
import type { z } from 'zod';
import type { McpServerConfig, McpTransportKind } from '../../machines/types.js';
import { quoted, terminalLine } from '../../machines/control-characters.js';
import { MAX_ARGUMENT_DEPTH } from '../../machines/errors.js';
import { measureJson } from '../../machines/json-fingerprint.js';
import { DEFAULT_BACKOFF, DEFAULT_MAX_RETRIES, inferTransport, parseTransport } from '../../machines/options.js';
import { rememberWrittenDefinition } from '../redact.js';
import { MAX_PURPOSE_CHARACTERS, MAX_SERVER_NAME_CHARACTERS, descriptionWithinCap } from '../text-limits.js';
import type { VariableSource } from './expand-variables.js';
import { copyConfig, expandConfig } from './expand-config.js';
import { isJsonObject, ownValue } from './null-proto.js';
import { fieldName, remoteRequirements, serverEntryShape, stdioRequirements } from './server-schema.js';
import type { ConfigProblem, ConfigScope, DiscoveredServer } from './types.js';
import { carriesCredentials, URL_CREDENTIALS_REFUSED } from './url-credentials.js';

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
    problems: [problem(context, 'error', name, field, `server ${quoted(name)} skipped: ${message}`)],
  });

  if (name === '') return skip('a server needs a non-empty name');
  if (name.length > MAX_SERVER_NAME_CHARACTERS) {
    return skip(`the name is ${name.length.toLocaleString('en-US')} characters long; the loader tools take at most ${MAX_SERVER_NAME_CHARACTERS.toLocaleString('en-US')}, so the model could never load it: shorten it`);
  }
  if (!isJsonObject(raw)) return skip('the entry must be a JSON object');
  // Unknown fields are kept, and the definition is written as JSON on its way to a connect (its
  // fingerprint, the era it spoke): thousands of levels would overflow the stack there.
  const tooDeep = fieldNestedTooDeep(raw);
  if (tooDeep !== undefined) {
    return skip(`${quoted(tooDeep)} is nested deeper than ${MAX_ARGUMENT_DEPTH} levels, the most this client reads: flatten it or remove it`, tooDeep);
  }

  const shape = serverEntryShape.safeParse(raw);
  if (!shape.success) return { problems: issuesToProblems(shape.error.issues, name, context) };

  // Skipped, not the key dropped: a server started without a variable or header its file gives
  // fails later and far from the cause. fetch refuses such a header name on every request anyway.
  const badKey = keyWithControlCharacters(raw);
  if (badKey !== undefined) {
    return skip(`the "${badKey.field}" key ${quoted(badKey.key)} holds a control character, which no ${badKey.field === 'env' ? 'variable' : 'header'} name can: rename or remove it`, badKey.field);
  }

  const notString = mapValueNotString(raw);
  if (notString !== undefined) return skip(`${quoted(notString)} must be a string`, notString);

  // zod's output is not used: it would drop an own `__proto__` key and give objects a prototype.
  const config = copyConfig(raw);
  const problems: ConfigProblem[] = [];

  const transport = inferTransport(config);
  if (transport === undefined) {
    return skip('cannot tell the transport: give "command" (stdio) or "url" (http), or set "type"');
  }
  problems.push(...ignoredTransportDeclarations(config, transport, name, context));
  // A declared transport is a choice; without one, `command` wins over `url` unseen.
  const declared = DECLARED_TRANSPORT_FIELDS.some((field) => typeof ownValue(config, field) === 'string');
  if (!declared && typeof config.command === 'string' && typeof config.url === 'string') {
    problems.push(
      problem(context, 'warning', name, 'url', `server ${quoted(name)}: both "command" and "url" are given and no "type": "command" is used (stdio) and "url" is ignored; set "type" to "http" to use the url`),
    );
  }

  const disabled = config.disabled === true;
  // Kept before expansion: an approval prompt shows what the file says, never what a variable holds.
  const written = copyConfig(raw);
  // `node server.mjs` in a project's file means the project's server.mjs, wherever the command
  // that reads the file was started: a project's stdio server runs in the project folder. The
  // written definition (what a chart holds, and a restored one expands again) says so too.
  if (transport === 'stdio' && context.scope === 'project') {
    config.cwd = written.cwd = path.resolve(path.dirname(context.file), typeof config.cwd === 'string' ? config.cwd : '.');
  }
  const { unset, changed } = expandConfig(config, context.env);
  // What a chart holds of the entry (src/sealed-config.ts): the file's words, not the variables' values.
  if (changed) rememberWrittenDefinition(config, written);
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
          `server ${quoted(name)}: variable ${variable} is not set (used in ${quoted(field)}); it expands to an empty string`,
        ),
      );
    }
  }

  const requirements = transport === 'stdio' ? stdioRequirements : remoteRequirements;
  const needs = requirements.safeParse(config);
  if (!needs.success) return { problems: [...problems, ...issuesToProblems(needs.error.issues, name, context)] };
  // Kept, as a connect then says the same (src/transports/http.ts), but said now: `servers` shows it.
  if (transport !== 'stdio' && carriesCredentials(config.url)) {
    problems.push(
      problem(
        context,
        'warning',
        name,
        'url',
        `server ${quoted(name)}: ${URL_CREDENTIALS_REFUSED}`,
      ),
    );
  }

  const leftover = langChainRetryKeys(config, name, context);
  if (leftover) problems.push(leftover);

  const server: DiscoveredServer = {
    name,
    config,
    transport,
    scope: context.scope,
    source: context.file,
    disabled,
    written,
  };
  if (typeof config.description === 'string') {
    server.description = descriptionWithinCap(config.description);
    if (config.description.length > MAX_PURPOSE_CHARACTERS) {
      const length = config.description.length.toLocaleString('en-US');
      const cap = MAX_PURPOSE_CHARACTERS.toLocaleString('en-US');
      problems.push(problem(context, 'warning', name, 'description', `server ${quoted(name)}: "description" is ${length} characters; the model is shown the first ${cap}`));
    }
  }
  return { server, problems };
}

/** LangChain's per-server retry keys: `restart` (stdio) and `reconnect` (http, sse). */
const LANGCHAIN_RETRY_KEYS = ['restart', 'reconnect'] as const;

/**
 * An entry copied from LangChain (or its Python adapters) keeps its `restart` / `reconnect`, which
 * nothing here reads: said once per server, with what does the same here, rather than ignored without a word.
 */
function langChainRetryKeys(config: McpServerConfig, name: string, context: EntryContext): ConfigProblem | undefined {
  const keys = LANGCHAIN_RETRY_KEYS.filter((key) => Object.hasOwn(config, key));
  if (keys.length === 0) return undefined;
  const written = keys.map((key) => `"${key}"`).join(' and ');
  return problem(
    context,
    'warning',
    name,
    keys[0],
    `server ${quoted(name)}: ${written} (LangChain's retry ${keys.length === 1 ? 'setting' : 'settings'}) ${keys.length === 1 ? 'is' : 'are'} not read here and can be removed: ` +
      `a server that fails to connect or drops is retried by itself (${DEFAULT_MAX_RETRIES} retries, waiting ${DEFAULT_BACKOFF.initialDelayMs / 1000} s, then twice as long each time); ` +
      'a program sets this with the connect options autoReconnect, maxRetries and backoff (README, "Coming from LangChain")',
  );
}

/** The first `env` or `headers` key with a control character in it (the key only: values are secrets). */
function keyWithControlCharacters(raw: Record<string, unknown>): { field: 'env' | 'headers'; key: string } | undefined {
  for (const field of ['env', 'headers'] as const) {
    const map = ownValue(raw, field);
    const key = isJsonObject(map) ? Object.keys(map).find((candidate) => terminalLine(candidate) !== candidate) : undefined;
    if (key !== undefined) return { field, key };
  }
  return undefined;
}

/** zod's record passes over an own `__proto__` key unchecked, so its value is checked here: `env.__proto__`. */
function mapValueNotString(raw: Record<string, unknown>): string | undefined {
  for (const field of ['env', 'headers'] as const) {
    const map = ownValue(raw, field);
    const key = isJsonObject(map) ? Object.keys(map).find((candidate) => typeof map[candidate] !== 'string') : undefined;
    if (key !== undefined) return `${field}.${key}`;
  }
  return undefined;
}

/** The first field whose value nests deeper than MAX_ARGUMENT_DEPTH levels, the entry being the first. */
export function fieldNestedTooDeep(raw: Record<string, unknown>): string | undefined {
  return Object.keys(raw).find((field) => measureJson(raw[field], MAX_ARGUMENT_DEPTH - 1, Number.POSITIVE_INFINITY).depth > MAX_ARGUMENT_DEPTH - 1);
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
        `server ${quoted(name)}: "${field}" disagrees with "${winner}" and is ignored; the transport is ${chosen}`,
      ),
    );
}

function issuesToProblems(issues: z.core.$ZodIssue[], name: string, context: EntryContext): ConfigProblem[] {
  return issues.map((issue) => {
    const field = fieldName(issue.path);
    if (field === '') return problem(context, 'error', name, undefined, `server ${quoted(name)} skipped: ${issue.message}`);
    return problem(context, 'error', name, field, `server ${quoted(name)} skipped: ${quoted(field)} ${issue.message}`);
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

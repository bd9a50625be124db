/**
 * `add` and `add-json`: write a server entry into the user's `~/.ai-zen/mcp.json` or the
 * project's `.mcp.json`, the shapes Claude Code's `claude mcp add` uses. A project entry added
 * here is approved as written: the person who typed it is the one who would be asked.
 */
import { dirname } from 'node:path';
import { discoverMcpServers, type DiscoveredServer } from '../../config/index.js';
import { approveServers, defaultApprovalsPath } from '../../config/project-trust.js';
import { serverEntryShape } from '../../config/server-schema.js';
import { isJsonObject } from '../../config/null-proto.js';
import { parseJson } from '../../config/parse-json.js';
import { silentLogger } from '../../logger.js';
import { MAX_ARGUMENT_DEPTH } from '../../../machines/errors.js';
import { measureJson } from '../../../machines/json-fingerprint.js';
import { configPathForScope, editServerEntries, type WritableScope } from '../config-file-edit.js';
import { CliError } from '../json-codes.js';
import { reportDone, reported } from '../command-report.js';
import { sharedCredentialsNotice } from '../shared-credentials.js';
import { writeRefusal } from '../write-refusal.js';
import { nameNote } from '../../../machines/look-alike-names.js';
import { quoted } from '../../../machines/control-characters.js';
import { runningServeHoldsText } from '../serve-holds-new.js';

export interface AddOptions {
  scope: WritableScope;
  project?: string;
  json?: boolean;
  force?: boolean;
}

export interface AddFlags extends AddOptions {
  env: string[];
  header: string[];
  transport?: 'stdio' | 'http' | 'sse';
}

/**
 * Names a person can type and read back: letters and digits of any script (`天気`, `café`, as a
 * hand-written config takes them), `_`, `.`, `-`; up to 64 characters. Eager exposure offers a tool
 * of a non-ASCII server under an ASCII name, its description naming the server as written.
 */
const SERVER_NAME = /^[\p{L}\p{N}][\p{L}\p{N}\p{M}_.-]{0,63}$/u;

export function checkServerName(name: string): void {
  if (!SERVER_NAME.test(name)) {
    throw new CliError(
      'INVALID_NAME',
      `${quoted(name)} is not a usable server name: use letters and digits (of any script), "_", "." and "-" (up to 64 characters, starting with a letter or digit).`,
    );
  }
  // A name that prints as another (`café` with a combining accent, `fѕ` with a Cyrillic ѕ) is noted
  // wherever it is shown; one typed here is refused instead, before it is ever written.
  if (nameNote(name) !== '') {
    throw new CliError(
      'INVALID_NAME',
      `${quoted(name)} is not a usable server name: it would print like a name written otherwise; type its accents as composed letters (NFC) and its letters in one script.`,
    );
  }
}

function keyValue(flag: string, text: string, separator: string, example: string): [string, string] {
  const at = text.indexOf(separator);
  const key = at > 0 ? text.slice(0, at).trim() : '';
  if (key === '') throw new CliError('INVALID_ARGUMENTS', `${flag} needs ${example}; got something without a name. Nothing was written.`);
  return [key, text.slice(at + separator.length).trim()];
}

/** The entry `add` writes: stdio `{command, args, env}`, or `{type, url, headers}`. */
export function entryFromFlags(flags: AddFlags, target: string, args: string[]): Record<string, unknown> {
  const looksLikeUrl = /^https?:\/\//i.test(target);
  // Written as a stdio command, ws://… or ftp://… would only fail later as a command not found.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(target)?.[1];
  if (scheme !== undefined && !looksLikeUrl) {
    throw new CliError('INVALID_ARGUMENTS', `${scheme}:// is not a URL an MCP server is reached at here: http and sse servers have an http:// or https:// URL. Nothing was written.`);
  }
  const transport = flags.transport ?? (looksLikeUrl ? 'http' : 'stdio');
  const env = Object.fromEntries(flags.env.map((pair) => keyValue('-e', pair, '=', 'KEY=VALUE, e.g. -e API_KEY=${API_KEY}')));
  const headers = Object.fromEntries(flags.header.map((pair) => keyValue('-H', pair, ':', "'Name: value', e.g. -H 'Authorization: Bearer ${TOKEN}'")));
  if (transport === 'stdio') {
    if (flags.header.length > 0) throw new CliError('INVALID_ARGUMENTS', '-H sets HTTP headers, which a stdio server has none of; use --transport http with a URL. Nothing was written.');
    return { command: target, ...(args.length > 0 ? { args } : {}), ...(flags.env.length > 0 ? { env } : {}) };
  }
  if (!looksLikeUrl) throw new CliError('INVALID_ARGUMENTS', `--transport ${transport} needs an http:// or https:// URL, e.g. https://example.com/mcp. Nothing was written.`);
  if (args.length > 0) throw new CliError('INVALID_ARGUMENTS', `an ${transport} server takes no arguments after its URL. Nothing was written.`);
  if (flags.env.length > 0) throw new CliError('INVALID_ARGUMENTS', `-e sets a process environment, which an ${transport} server has none of; use -H for headers. Nothing was written.`);
  refuseUrlCredentials(target, "-H 'Authorization: Bearer ${TOKEN}'");
  return { type: transport, url: target, ...(flags.header.length > 0 ? { headers } : {}) };
}

/**
 * fetch refuses a URL with a user name or password before sending anything, so such an entry
 * could never connect, and the password would sit in the file as plain text. Never echoes the URL.
 */
function refuseUrlCredentials(url: string, instead: string): void {
  const parsed = URL.parse(url);
  if (parsed === null || (parsed.username === '' && parsed.password === '')) return;
  throw new CliError(
    'INVALID_ENTRY',
    `the URL carries a user name or password, which is never sent (fetch refuses such a URL) and would be stored as plain text: give the credential as a header instead, ${instead}. Nothing was written.`,
  );
}

/** `add-json`'s argument: one JSON object that is a valid entry. */
export function entryFromJson(text: string): Record<string, unknown> {
  const parsed = parseJson(text);
  if (!parsed.ok) throw new CliError('INVALID_JSON', `the definition is not valid JSON (column ${parsed.column}: ${parsed.reason}). Nothing was written.`);
  if (!isJsonObject(parsed.value)) throw new CliError('INVALID_JSON', 'the definition must be a JSON object, e.g. \'{"command":"npx","args":["-y","pkg"]}\'. Nothing was written.');
  // The entry check below recurses: thousands of levels would overflow the stack.
  if (measureJson(parsed.value, MAX_ARGUMENT_DEPTH, Number.POSITIVE_INFINITY).depth > MAX_ARGUMENT_DEPTH) {
    throw new CliError('INVALID_JSON', `the definition is nested deeper than ${MAX_ARGUMENT_DEPTH} levels, the most this client accepts. Nothing was written.`);
  }
  const checked = serverEntryShape.safeParse(parsed.value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new CliError('INVALID_ENTRY', `the definition's "${issue.path.join('.')}" ${issue.message}. Nothing was written.`);
  }
  if (typeof parsed.value.command !== 'string' && typeof parsed.value.url !== 'string') {
    throw new CliError('INVALID_ENTRY', 'the definition needs a "command" (stdio) or a "url" (http, sse). Nothing was written.');
  }
  if (typeof parsed.value.url === 'string') refuseUrlCredentials(parsed.value.url, '"headers": {"Authorization": "Bearer ${TOKEN}"}');
  return parsed.value;
}

/** The project's definition of `name` in `file`, as discovery sees it (so its fingerprint is the one checked later). */
export async function projectDefinition(file: string, name: string): Promise<DiscoveredServer | undefined> {
  const result = await discoverMcpServers({ projectRoot: dirname(file), env: process.env, logger: silentLogger, projectServers: 'trust' });
  const candidates = [...Object.values(result.servers), ...(result.shadowed ?? [])];
  return candidates.find((server) => server.name === name && server.source === file && server.scope === 'project');
}

/** Writes the entry (refusing to replace one without `--force`); approves a project entry. */
export async function writeServerEntry(name: string, entry: Record<string, unknown>, options: AddOptions): Promise<{ file: string; replaced: boolean; approved: boolean }> {
  checkServerName(name);
  const file = await configPathForScope(options.scope, options.project);
  let replaced = false;
  await editServerEntries(file, options.scope, (servers) => {
    replaced = Object.hasOwn(servers, name);
    if (replaced && !options.force) {
      throw new CliError(
        'ALREADY_EXISTS',
        `"${name}" is already defined in ${file}. Run \`mcp-statechart remove ${name} --scope ${options.scope}\` first, or add --force to replace it.`,
      );
    }
    servers[name] = entry;
    return true;
  });
  let approved = false;
  if (options.scope === 'project') {
    const definition = await projectDefinition(file, name);
    if (definition) {
      await approveServers({}, [definition]).catch((error: unknown) => {
        throw approvalRefused(`${replaced ? 'replaced' : 'added'} "${name}" in ${file}`, file, [name], error);
      });
      approved = true;
    }
  }
  return { file, replaced, approved };
}

/**
 * A refused approval write, worded: the entries are in `file` by now (`written` says so) and
 * undoing them would be one more write the same disk refuses, so what is left is said instead.
 */
export function approvalRefused(written: string, file: string, names: readonly string[], error: unknown): unknown {
  const refusal = writeRefusal(error);
  if (!refusal) return error;
  const one = names.length === 1;
  return new CliError(
    'WRITE_FAILED',
    `${written}, but could not write ${one ? 'its approval' : 'their approvals'} to ${defaultApprovalsPath()}: ${refusal.reason}. ${one ? 'The entry is' : 'The entries are'} written but not approved, so ${one ? 'it' : 'they'} will not start until approved.`,
    `${refusal.remedy}, then run \`mcp-statechart approve ${names.join(' ')}\` in ${dirname(file)}.`,
  );
}

function addedText(name: string, scope: WritableScope, result: { file: string; replaced: boolean; approved: boolean }, entry: Record<string, unknown>): string {
  const kind = typeof entry.url === 'string' ? String(entry.type ?? 'http') : 'stdio';
  const lines = [`${result.replaced ? 'Replaced' : 'Added'} ${kind} server "${name}" in ${result.file} (${scope} scope).`];
  if (result.approved) lines.push('As you added it, it counts as approved by you; an edit of its definition needs approval again.');
  const shared = scope === 'project' ? sharedCredentialsNotice(name, entry, result.file) : undefined;
  if (shared !== undefined) lines.push(shared);
  // A running serve holds what appears in the user file until a person confirms it (serve-new-servers.ts); project servers were approved above.
  if (scope === 'user') lines.push(runningServeHoldsText([name]));
  lines.push(`Check it with \`mcp-statechart get ${name}\`.`);
  return lines.join('\n');
}

export function runAdd(name: string, target: string, args: string[], flags: AddFlags): Promise<number> {
  return reported(flags, async () => {
    const entry = entryFromFlags(flags, target, args);
    const result = await writeServerEntry(name, entry, flags);
    return reportDone(flags, addedText(name, flags.scope, result, entry), { name, scope: flags.scope, ...result });
  });
}

export function runAddJson(name: string, json: string, options: AddOptions): Promise<number> {
  return reported(options, async () => {
    const entry = entryFromJson(json);
    const result = await writeServerEntry(name, entry, options);
    return reportDone(options, addedText(name, options.scope, result, entry), { name, scope: options.scope, ...result });
  });
}

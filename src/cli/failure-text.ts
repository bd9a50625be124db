/**
 * Failures worded for a person at a terminal: what failed, why, and what to do. The loader tools
 * word the same errors for a model (src/tools/failure-text.ts); both read one structured error,
 * `McpServerError` (code, server, cause, stderr tail).
 */
import { McpServerError } from '../../machines/errors.js';
import type { DiscoveredServer, DiscoveryResult } from '../config/index.js';
import { redact, secretsOf } from '../redact.js';
import { commandWord, terminalLine } from './terminal-text.js';
import { isolatedForPerson, quoted, terminalMessageLine } from '../../machines/control-characters.js';
import { lookAlikeNotes } from '../../machines/look-alike-names.js';
import { listNames } from '../tools/list-names.js';
import { errorMessage } from '../../machines/to-error.js';
import { isOAuthLoginRequired } from '../errors/oauth.js';
import { abortedAtStart, endedFromOutside, isExitedAtStart, shortageAtStart, SHORTAGE_WORDS } from '../errors/exited-at-start.js';
import { missingCapabilities, missingHandlerAdvice } from '../connection/missing-handler.js';
import { CONNECT_TIMEOUT_ADVICE } from '../connection/open-session.js';
import { isPinnedEraRefusal, isVersionRefusal, speaksOnlyModern } from '../connection/errors.js';
import { isTaskCutOff, isTaskTimeLimit } from '../connection/task-time-limit.js';
import { isOverMessageLimit, MAX_MESSAGE_MIB } from '../transports/message-size.js';
import { firstAndLastLines, leftLinesOut } from '../transports/stderr-tail.js';
import { hasStaticAuthorization } from '../auth/oauth-config.js';
import { offersOAuth } from '../auth/oauth-offered.js';
import { closestNames } from '../search/closest-names.js';
import { CliError } from './json-codes.js';
import { issuesOnOneLine } from './schema-issues.js';
import type { ManifestSummary } from '../tools/manifest-summary.js';

export interface FailureExplanation {
  /** `McpServerError.code`, or the errno / HTTP status of a plain error, when known. */
  code?: string;
  /** One line: what failed and why. */
  message: string;
  /** The last lines the server wrote to stderr, when it wrote any. */
  stderrTail?: string;
  /** What the person can do about it, when we can tell. */
  hint?: string;
  /** The server wants an OAuth login first (`mcp-statechart login <server>`): not broken, just not logged in. */
  needsLogin?: true;
  /** The server offers no OAuth login, so `mcp-statechart login` cannot help: it wants a token in a header. */
  offersNoLogin?: true;
  /** Something found while explaining that will matter next (broken OAuth metadata a login would meet). */
  warning?: string;
}

/** Long enough for any useful reason, short enough that a 20 MB error body cannot flood a terminal. */
const MAX_REASON_CHARS = 500;
/** Of the stderr kept: the first lines often say why a process died at start, the last why it died later. */
const FIRST_STDERR_SHOWN = 4;
const LAST_STDERR_SHOWN = 6;
const SEE_THE_SERVERS = 'run `mcp-statechart servers` to see every configured server';

function firstLine(message: string): string {
  const text = issuesOnOneLine(message) ?? message;
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? text;
  return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS)}…` : line;
}

/** The error that says why: the cause an `McpServerError` wraps, else the error itself. */
function rootCause(error: unknown): unknown {
  return error instanceof McpServerError && error.cause !== undefined ? error.cause : error;
}

function propertyOf(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[key] : undefined;
}

/** The HTTP status the SDK's transports report: `status` (SdkHttpError), or `code` (SseError). */
function httpStatusOf(error: unknown): number | undefined {
  const status = propertyOf(error, 'status');
  if (typeof status === 'number') return status;
  const code = propertyOf(error, 'code');
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}

function where(entry: DiscoveredServer | undefined): string {
  return entry ? ` in ${entry.source}` : '';
}

/** Launchers that download the server on their first run. */
const DOWNLOADING_LAUNCHER = /(^|[/\\])(npx|uvx|bunx|pnpx|pipx)(\.cmd|\.exe)?$/;

/**
 * A slow start may be a launcher still downloading; a request that ran past its limit was
 * slow at the request, and the limit is what the person can change.
 */
function timeoutHint(code: string | undefined, command: string | undefined, entry: DiscoveredServer | undefined): string {
  if (code !== 'CONNECT_FAILED' && code !== 'CONFIG_ERROR') {
    return `the server did not answer within the time limit: give it longer with --timeout <ms>, or set "timeoutMs"${where(entry)}`;
  }
  if (command !== undefined && DOWNLOADING_LAUNCHER.test(command)) {
    return `it did not finish starting in time; a first \`${command}\` run may still be downloading: try again`;
  }
  // An entry's "timeoutMs" bounds its requests, not its start.
  return 'it did not finish starting in time: give it longer with --timeout <ms>';
}

function hintFor(server: string, error: unknown, cause: unknown, entry: DiscoveredServer | undefined, loginOffered: boolean | undefined): string | undefined {
  const code = error instanceof McpServerError ? error.code : undefined;
  const errno = propertyOf(cause, 'code');
  const status = httpStatusOf(cause);
  const command = entry?.config.command;
  const url = entry?.config.url;
  const reason = errorMessage(cause);

  if (code === 'UNKNOWN_SERVER') return SEE_THE_SERVERS;
  if (code === 'SERVER_DISABLED') return entry ? offExplanation(server, entry).hint : 'remove "disabled": true from its entry to use it';
  // Running the command again would start a second task beside the one that may still run.
  if (isOverMessageLimit(cause)) {
    return `the server's answer is over the ${MAX_MESSAGE_MIB} MiB limit, so running the command again fails the same way: ask for less (narrower arguments, a filter, a page at a time)`;
  }
  if (code === 'CONNECTION_LOST' && isTaskCutOff(cause)) return 'the task may still run on the server: running the command again starts another task';
  if (code === 'CONNECTION_LOST' || code === 'DISCONNECTED') {
    return 'the request may or may not have taken effect; run the command again (it reconnects)';
  }
  // `login` refuses an entry that sends its own Authorization header: that header is what to fix.
  if (refusedOwnAuthorization(cause, entry)) {
    const orLogIn = loginOffered === true ? `, or remove it to log in with \`mcp-statechart login ${commandWord(server)}\`` : '';
    return `the server refused the "Authorization" header the entry sends: check it in "headers"${where(entry)}${orLogIn}`;
  }
  // No login exists for it, and none was asked for: what it wants is a header.
  if (propertyOf(cause, 'name') === 'BearerTokenRequiredError' || (status === 401 && entry !== undefined && entry.config.oauth === false)) {
    return `add its bearer token to the entry "${server}"${where(entry)}: "headers": { "Authorization": "Bearer \${TOKEN}" } (\`mcp-statechart add -H\` writes one); no login can get it`;
  }
  if (propertyOf(cause, 'reason') === 'unpinned') return `check "oauth.issuer"${where(entry)}: the server names another authorization server, and a login is refused the same way`;
  if (propertyOf(cause, 'name') === 'OAuthLoginRequiredError' || status === 401) return `run \`mcp-statechart login ${commandWord(server)}\``;
  if (propertyOf(cause, 'name') === 'ConfigInvalidError') return `fix the entry "${server}"${where(entry)}`;
  if (errno === 'ENOENT') {
    return command ? `check that \`${command}\` is installed and on PATH, or fix "command"${where(entry)}` : `fix the entry${where(entry)}`;
  }
  if (errno === 'E2BIG') return `shorten "args" or "env"${where(entry)}`;
  if (errno === 'EACCES') return `\`${command ?? 'the command'}\` is not executable: check its permissions`;
  const refusedEndpoint = propertyOf(cause, 'name') === 'SseEndpointRefusedError' ? propertyOf(cause, 'endpointStatus') : undefined;
  if (refusedEndpoint === 404 || refusedEndpoint === 405) {
    return `the server (old HTTP+SSE transport) takes messages at the path its event stream announced, not at the "url": a proxy in front of it may not route that path; make the proxy pass it to the server, or have the server announce a path the proxy routes`;
  }
  if (status === 403) return `the server refused the credentials: check the "headers"${where(entry)}, or run \`mcp-statechart login ${commandWord(server)}\``;
  if (status === 404) return `nothing answers MCP at ${url ?? 'that URL'}: check the path in the "url"${where(entry)} (e.g. /mcp)`;
  if (status === 405) return `nothing answers MCP at ${url ?? 'that URL'}: check the "url"${where(entry)}`;
  if (status === 502 || status === 503 || status === 504) {
    return `the server could not be reached (HTTP ${status}): it, or a proxy or gateway in front of it, is unavailable for now; try again later`;
  }
  if (status !== undefined && status >= 500) return `the server is up but failing (HTTP ${status}): check its logs, or try again later`;
  const notHttp = httpParseErrorOf(cause);
  if (notHttp !== undefined) return `something answers at ${url ?? 'its address'}, but not with valid HTTP (${notHttp}): check the "url"${where(entry)}, and the server or proxy answering there`;
  if (reason.includes('what answers at that URL is not an MCP endpoint')) {
    return `something answers at ${url ?? 'its address'}, but not as MCP: check the path in the "url"${where(entry)} (e.g. /mcp), and the server or proxy answering there`;
  }
  if (errno === 'ECONNREFUSED' || /fetch failed|ECONNREFUSED/.test(reason)) {
    return `nothing is listening at ${url ?? 'its address'}: is the server running?`;
  }
  // A task's time limit says "time limit", and the server did answer: the task was still working.
  if (isTaskTimeLimit(cause)) return `the task was still working at the time limit: give it longer with --timeout <ms>, or set "timeoutMs"${where(entry)}`;
  if (/timed out|timeout/i.test(reason)) return timeoutHint(code, command, entry);
  if (isPinnedEraRefusal(cause)) return `the server speaks an earlier MCP revision: set "protocol" to "auto" or "legacy" in the entry "${server}"${where(entry)}`;
  if (speaksOnlyModern(cause)) {
    // Under "auto" or "modern" the server was asked server/discover first and did not answer it as a 2026-07-28 server.
    return entry === undefined || entry.config.protocol === 'legacy'
      ? `the server speaks only MCP 2026-07-28: set "protocol" to "auto" or "modern" in the entry "${server}"${where(entry)}`
      : `the server names 2026-07-28 in its initialize answer, but did not answer server/discover as a 2026-07-28 server (the entry's "protocol" is "${entry.config.protocol ?? 'auto'}"): report it to the server's authors`;
  }
  if (isVersionRefusal(cause)) return 'the server and this client share no MCP protocol version (both lists are above): update whichever side is older';
  const missing = missingCapabilities(cause);
  if (missing !== undefined) {
    // On a terminal the command opens pages (URL-mode elicitation) and nothing else.
    const onlyAPage = Object.keys(missing).join() === 'elicitation' && missing.elicitation?.url !== undefined && missing.elicitation.form === undefined;
    return onlyAPage
      ? 'run the command on a terminal: there it shows the page the server wants opened and asks you first'
      : "the command line answers no forms, sampling or roots requests: call the tool from an MCP host through `mcp-statechart serve`, which passes the server's questions to the host";
  }
  const shortage = shortageAtStart(cause, error instanceof McpServerError ? error.stderrTail : undefined);
  if (shortage !== undefined) {
    const { short, raise } = SHORTAGE_WORDS[shortage];
    return `its stderr says this machine gave its command no more ${short}, so the entry is likely fine: raise ${raise}, or use fewer servers at once, then try again`;
  }
  if (endedFromOutside(cause)) {
    return 'a signal from outside ended its process (a kill by hand, or the system running out of memory), not its command: trying again may help; if it is ended again, look for what kills it (a memory limit, a supervisor)';
  }
  if (abortedAtStart(cause)) {
    return `its command aborted at start: it crashed, or this machine is short of threads, processes or memory (ulimit -u, a container's limits); its stderr, or running the command by hand, says which. If it names no shortage, check "command", "args" or "env"${where(entry)}`;
  }
  if (isExitedAtStart(cause)) {
    // Retried like any crash (a download or a busy port can pass), so "will not help" would be untrue.
    return `its command fails at start, and trying again will likely fail the same way until that is fixed: check "command", "args" or "env"${where(entry)} (its stderr, or running the command by hand, says why)`;
  }
  return undefined;
}

/** fetch's "fetch failed" hides what went wrong; an `HPE_` code under it is Node's HTTP parser refusing the answer (its message is Node's own, no byte of the answer's). */
function httpParseErrorOf(cause: unknown): string | undefined {
  const parserError = propertyOf(cause, 'cause');
  const code = propertyOf(parserError, 'code');
  return typeof code === 'string' && code.startsWith('HPE_') ? errorMessage(parserError) : undefined;
}

function refusedOwnAuthorization(cause: unknown, entry: DiscoveredServer | undefined): boolean {
  const status = httpStatusOf(cause);
  return entry !== undefined && hasStaticAuthorization(entry.config) && (status === 401 || status === 403);
}

/**
 * Reads any error the manager or the loader tools report. `entry` (the server's config, as
 * discovery found it) lets the hint name the command, URL and file to fix; it is never printed
 * as a whole, since its env and headers may hold secrets. `loginOffered`: whether the server
 * offers an OAuth login, when asked (`explainFailureAsking`); a login is suggested instead of
 * the entry's own header only when it does.
 */
export function explainFailure(server: string, error: unknown, entry?: DiscoveredServer, loginOffered?: boolean): FailureExplanation {
  const cause = rootCause(error);
  const structured = error instanceof McpServerError ? error : undefined;
  const kept = structured?.stderrTail?.trim();
  const stderrTail = kept && firstAndLastLines(kept, FIRST_STDERR_SHOWN, LAST_STDERR_SHOWN);
  const connecting = structured?.code === 'CONFIG_ERROR' || structured?.code === 'CONNECT_FAILED';
  // The manager's advice to a program (which handler to give) is no use to a person: the hint says what they can do.
  const advice = missingHandlerAdvice(cause);
  // The library's advice names its connectTimeoutMs option; here the hint names --timeout, which sets it.
  const told = firstLine(errorMessage(connecting ? cause : error)).replace(CONNECT_TIMEOUT_ADVICE, '');
  const reason = advice !== undefined && told.endsWith(`: ${advice}`) ? told.slice(0, -(advice.length + 2)) : told;
  const errno = propertyOf(cause, 'code');
  const code = structured?.code ?? (typeof errno === 'string' || typeof errno === 'number' ? String(errno) : undefined);
  const hint = hintFor(server, error, cause, entry, loginOffered);
  // A reason that ends with the hint itself (an OAuth login error: "…; run `mcp-statechart login x`") says it once, as the hint.
  const said = hint !== undefined && reason.endsWith(`; ${hint}`) ? reason.slice(0, -(hint.length + 2)) : reason;
  const explanation: FailureExplanation = {
    message: connecting ? `could not connect to "${server}": ${said}` : said,
  };
  if (code !== undefined) explanation.code = code;
  if (stderrTail) explanation.stderrTail = stderrTail;
  if (isOAuthLoginRequired(error)) explanation.needsLogin = true;
  if (loginOffered === false || propertyOf(cause, 'name') === 'BearerTokenRequiredError') explanation.offersNoLogin = true;
  // The hint quotes the entry's URL and command, which may carry a token.
  if (hint) explanation.hint = entry ? redact(hint, secretsOf(entry.config)) : hint;
  return explanation;
}

/**
 * `explainFailure`, having asked a server that refused the entry's own Authorization header
 * whether it offers an OAuth login (its well-known metadata, without the header): a token-only
 * server is not one a login can reach.
 */
export async function explainFailureAsking(server: string, error: unknown, entry?: DiscoveredServer): Promise<FailureExplanation> {
  const url = entry?.config.url;
  const ask = refusedOwnAuthorization(rootCause(error), entry) && url !== undefined && URL.canParse(url);
  return explainFailure(server, error, entry, ask ? await offersOAuth(new URL(url)) : undefined);
}

/**
 * Why a person cannot use a server that is off, and what to do: its own `"disabled": true`, or
 * the reason discovery keeps it off (a project server waiting for approval, or denied).
 */
export function offExplanation(server: string, entry: DiscoveredServer): FailureExplanation {
  if (entry.disabledBecause === undefined) {
    return { code: 'SERVER_DISABLED', message: `server "${server}" is disabled`, hint: `remove "disabled": true from its entry${where(entry)} to use it` };
  }
  const explanation: FailureExplanation = { code: 'SERVER_DISABLED', message: `server "${server}" is off: ${entry.disabledBecause}` };
  if (entry.trust === 'awaiting approval') explanation.hint = `run \`mcp-statechart approve ${commandWord(server)}\` on a terminal, or pass --project-servers trust`;
  if (entry.trust === 'denied') explanation.hint = 'project servers run only with --project-servers ask (once approved) or trust';
  return explanation;
}

/** Up to this many configured names are listed when none is close to the one typed. */
const LISTED_NAMES = 20;

/** `quoted`, the name inside the quotes set apart when right-to-left (`isolatedForPerson`). */
function quotedForPerson(name: string): string {
  const shown = quoted(name);
  const close = shown.lastIndexOf('"');
  return `"${isolatedForPerson(shown.slice(1, close))}${shown.slice(close)}`;
}

/**
 * "a", "a or b", "a, b or c", each quoted with what tells it from a look-alike, the name typed
 * among them: "did you mean" never offers, unremarked, a name that prints as the one typed.
 */
function eitherOf(names: readonly string[], typed: string): string {
  const alike = lookAlikeNotes([...names, typed]);
  // `"عربي", "عربية"`: the comma between two right-to-left names would take their direction.
  const shown = names.map((name, index) => `${quotedForPerson(name)}${alike[index]}`);
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

/**
 * A name no configured server has, one wording for every command: the closest configured names
 * (a typo, a partial name), else the names that are (the first 20), and where to see them all.
 * `searched`: where the command looked, when that was not everywhere (`remove`: "the user scope (<file>)").
 */
export function unknownServerExplanation(server: string, configured: readonly string[], searched?: string): FailureExplanation {
  // One edit in three characters: "nots" and "weathr" are typos of "notes" and "weather"; "ghost" is no typo of "first".
  const closest = closestNames(server, configured, 5, Math.max(1, Math.floor(server.length / 3)));
  const known =
    configured.length === 0
      ? 'no server is configured'
      : closest.length > 0
        ? `did you mean ${eitherOf(closest, server)}?`
        : `configured: ${listNames(configured.slice(0, LISTED_NAMES), LISTED_NAMES, { beside: [server], forPerson: true })}${configured.length > LISTED_NAMES ? ', …' : ''}`;
  const where = searched === undefined ? '' : ` in ${searched}`;
  const typedNote = lookAlikeNotes([server, ...(closest.length > 0 ? closest : configured.slice(0, LISTED_NAMES))])[0];
  return { code: 'UNKNOWN_SERVER', message: `there is no server named ${quoted(server)}${typedNote}${where} (${known})`, hint: SEE_THE_SERVERS };
}

type ServersAndProblems = Pick<DiscoveryResult, 'servers' | 'problems'>;

/** Why a server's entry was skipped (a field of the wrong type, say) and which file to fix; undefined when it was not. */
function skippedEntryExplanation(server: string, discovery: ServersAndProblems): FailureExplanation & { code: 'CONFIG_PROBLEMS'; hint: string } | undefined {
  const skipped = discovery.problems.filter((problem) => problem.severity === 'error' && problem.server === server);
  if (skipped.length === 0) return undefined;
  const files = [...new Set(skipped.map((problem) => problem.file))].join(' and ');
  return {
    code: 'CONFIG_PROBLEMS',
    message: skipped.map((problem) => problem.message).join('; '),
    hint: `fix the entry "${server}" in ${files}; \`mcp-statechart servers\` lists every problem`,
  };
}

/** A name that is not among the servers in use: a skipped entry says why, else as `unknownServerExplanation`. */
export function missingServerExplanation(server: string, discovery: ServersAndProblems): FailureExplanation {
  return skippedEntryExplanation(server, discovery) ?? unknownServerExplanation(server, Object.keys(discovery.servers));
}

/** The same, thrown by the commands that report through `reported` (search, get). */
export function missingServerError(server: string, discovery: ServersAndProblems): CliError {
  const skipped = skippedEntryExplanation(server, discovery);
  return skipped ? new CliError(skipped.code, skipped.message, skipped.hint) : unknownServerError(server, Object.keys(discovery.servers));
}

/** `unknownServerExplanation`, thrown by the commands that report through `reported`. */
export function unknownServerError(server: string, configured: readonly string[], searched?: string, hint?: string): CliError {
  const explanation = unknownServerExplanation(server, configured, searched);
  return new CliError('UNKNOWN_SERVER', explanation.message, hint ?? explanation.hint);
}

const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

/**
 * A server's "no such resource" to resources/read: -32002 (earlier SDKs' ResourceNotFound) or
 * -32602, invalid params, whose only param is the URI, whatever the words (`ResourceNotFoundError`
 * puts the URI in its data, the v1 SDK says "Resource <uri> not found", hand-written servers
 * "Unknown resource"). Read from the code, not the class: a refusal whose URI held a secret is a
 * redacted copy (src/redact.ts), a plain Error that keeps it.
 */
function isMissingResource(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  return code === RESOURCE_NOT_FOUND || code === INVALID_PARAMS;
}

/** Up to this many resources and templates are named in the hint; more are for `load` to list. */
const NAMED_RESOURCES_MAX = 5;

/** What the server listed at load, when it is short and whole enough to name in a hint. */
export type ListedResources = Pick<ManifestSummary, 'resources' | 'resourceTemplates' | 'omitted'>;

function listedResourcesHint(server: string, listed: ListedResources | undefined, secrets: readonly string[]): string {
  const load = `\`mcp-statechart load ${commandWord(server)}\``;
  const uris = listed && [...listed.resources.map(({ uri }) => uri), ...listed.resourceTemplates.map(({ uriTemplate }) => `${uriTemplate} (template)`)];
  const whole = listed !== undefined && !listed.omitted?.resources && !listed.omitted?.resourceTemplates;
  if (!uris || !whole || uris.length > NAMED_RESOURCES_MAX) return `${load} lists its resources and resource templates`;
  if (uris.length === 0) return 'it lists no resources or resource templates';
  return `it lists ${uris.map((uri) => redact(uri, secrets)).join(', ')}; ${load} shows them with their names`;
}

/**
 * `read` of a URI the server does not have: that, and the ones it has (by name when few, else
 * where to see them); undefined for any other failure. A value of the entry in a URI is redacted,
 * as in the server's own words.
 */
export function missingResourceExplanation(server: string, uri: string, error: unknown, entry?: DiscoveredServer, listed?: ListedResources): FailureExplanation | undefined {
  if (!isMissingResource(rootCause(error))) return undefined;
  const code = error instanceof McpServerError ? error.code : 'REQUEST_FAILED';
  const secrets = entry ? secretsOf(entry.config) : [];
  // "has no resource X; it lists X" contradicted itself: the v1 SDK's server looks a URI up
  // percent-encoded, so one it lists with 日本語 or é in it is "not found" when read back.
  if (listed?.resources.some((resource) => resource.uri === uri)) {
    return {
      code,
      message: `server "${server}" lists resource "${redact(uri, secrets)}" but answered that it has no such resource`,
      hint: 'the server cannot read a URI it lists (some look it up percent-encoded, as non-ASCII characters are in a URL): report it to its authors',
    };
  }
  return { code, message: `server "${server}" has no resource "${redact(uri, secrets)}"`, hint: listedResourcesHint(server, listed, secrets) };
}

/** The explanation as lines for stderr, every control character from a config or server escaped. */
export function formatFailure(explanation: FailureExplanation): string {
  // A server's line breaks stay line breaks, indented so no line can pass for one of ours.
  const [first = '', ...rest] = explanation.message.split(/\r?\n/);
  const lines = [`Error: ${terminalMessageLine(first)}`];
  if (rest.length > 0) lines.push(...indentedLines(rest.join('\n'), '  '));
  if (explanation.stderrTail) {
    const heading = leftLinesOut(explanation.stderrTail) ? 'First and last lines the server wrote to stderr:' : 'Last lines the server wrote to stderr:';
    lines.push(heading, ...indentedLines(explanation.stderrTail, '  '));
  }
  if (explanation.hint) lines.push(`Hint: ${terminalMessageLine(explanation.hint)}`);
  return lines.join('\n');
}

/** A server's stderr tail, one escaped line each, indented under its heading. */
export function indentedLines(text: string, indent: string): string[] {
  return text.split('\n').map((line) => `${indent}${terminalLine(line)}`);
}

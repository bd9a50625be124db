import { quoted, terminalLine } from '../../machines/control-characters.js';
import { SseEndpointRefusedError } from '../transports/sse-endpoint.js';
import { OAuthError, OAuthErrorCode, ProtocolError, SdkError, SdkErrorCode, SdkHttpError, SseError, UnsupportedProtocolVersionError } from '@modelcontextprotocol/client';
import { STATUS_CODES } from 'node:http';
import { McpServerError } from '../../machines/errors.js';
import { redact, redactError } from '../redact.js';
import { capErrorText } from '../text-limits.js';
import { MessageTooLargeError } from '../transports/message-size.js';
import { BearerTokenRequiredError, OAuthLoginRequiredError, OAuthScopeRefusedError } from '../errors/oauth.js';
import { ConfigInvalidError } from '../errors/config-invalid.js';
import { shortageAtStart, SHORTAGE_WORDS } from '../errors/exited-at-start.js';
import { RefusedHandshakeAnswerError } from './message-depth-limit.js';
import { errorMessage } from '../../machines/to-error.js';
import { isVersionRefusalSaidHere, MODERN_REVISION, offeredVersions } from './era-probe.js';


/**
 * A server sent more than a listing accepts (src/connection/manifest.ts): it would do so again,
 * so it is not retried.
 */
export class ListingLimitError extends Error {
  override name = 'ListingLimitError';
  constructor(
    readonly server: string,
    what: string,
    /** What to do, after the reason in the connect error; by default that it will not be retried. */
    readonly hint = ' It will not be retried.',
  ) {
    super(`the server ${what}, more than mcp-statechart accepts`);
  }
}

/** The server sent more than is accepted: too many entries, a message over the size limit, a handshake answer too deep or too large. */
function isOverLimit(error: unknown): boolean {
  return error instanceof ListingLimitError || error instanceof MessageTooLargeError || error instanceof RefusedHandshakeAnswerError;
}

const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** What a proxy or gateway answers when the server behind it is down, overloaded or slow; a server may say 503 itself. */
const UNAVAILABLE_STATUS = new Set([502, 503, 504]);

/** An HTTP 502, 503 or 504: the server could not be reached for now, not a failure of the request. */
export function isUnavailable(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && UNAVAILABLE_STATUS.has(status);
}
const CONFIG_ERRNO = new Set(['ENOENT', 'EACCES', 'ENOTDIR', 'E2BIG', 'ERR_INVALID_URL']);
const CONFIG_HTTP_STATUS = new Set([401, 403, 404, 405]);

/** The HTTP status an error carries: the Streamable HTTP transport's `SdkHttpError`, or the SSE transport's `SseError`. */
function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) return error.status;
  if (error instanceof SseError) return error.code;
  return undefined;
}

/** The authorization server's outages and rate limits: worth another try, unlike its other refusals. */
const PASSING_OAUTH_CODES = new Set<string>([OAuthErrorCode.ServerError, OAuthErrorCode.TemporarilyUnavailable, OAuthErrorCode.TooManyRequests]);

/**
 * OAuth said no in a way a retry cannot change: a login is needed (or a bearer token, where the
 * server offers no login), a scope is refused, or the
 * authorization server rejected the client or grant (its outages and rate limits stay transient).
 */
function isOAuthRefusal(error: unknown): boolean {
  if (error instanceof OAuthLoginRequiredError || error instanceof OAuthScopeRefusedError || error instanceof BearerTokenRequiredError) return true;
  return error instanceof OAuthError && !PASSING_OAUTH_CODES.has(error.code);
}

/** Only a refusal of credentials that were sent is one: with no login stored, or none sent to an unpinned issuer, there were none. */
function oauthRefusalHint(error: unknown): string {
  if (error instanceof OAuthLoginRequiredError && error.reason === 'none') return ' No credentials were sent; it will not be retried until a login is stored.';
  if (error instanceof OAuthLoginRequiredError && error.reason === 'unpinned') return ' It will not be retried.';
  return ' The server refused the credentials; it will not be retried.';
}

/**
 * The default `isConfigError`: a missing or forbidden command, a bad URL (or a port fetch blocks), an invalid entry,
 * HTTP 401/403 (no auth provider), an OAuth login that is needed or refused, 404/405 on
 * initialize, an unsupported protocol version, an answer too large (or a handshake answer too deep) to read.
 * Everything else (timeouts, refused connections, 5xx, crashes) is transient.
 *
 * @example
 * ```ts
 * import { isConfigError, McpConnectionManager } from 'mcp-statechart';
 *
 * const manager = new McpConnectionManager();
 * try {
 *   await manager.connect('notes', { command: 'notes-server' });
 * } catch (error) {
 *   console.error(isConfigError(error) ? 'fix the config entry' : 'try again later', error);
 * }
 * ```
 */
export function isConfigError(error: unknown): boolean {
  if (error instanceof ConfigInvalidError || isOverLimit(error) || isBlockedPort(error)) return true;
  if (error instanceof Error && error.name === 'UnauthorizedError') return true;
  if (isOAuthRefusal(error)) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && CONFIG_ERRNO.has(code)) return true;
  const status = httpStatusOf(error);
  if (status !== undefined && CONFIG_HTTP_STATUS.has(status)) return true;
  // -32022: the server speaks none of the revisions offered (2026-07-28's UnsupportedProtocolVersion).
  if (error instanceof ProtocolError && error.code === UNSUPPORTED_PROTOCOL_VERSION) return true;
  if (isPinnedEraRefusal(error)) return true;
  if (isRefusedEventStream(error)) return true;
  return error instanceof Error && /protocol version is not supported/i.test(error.message);
}

/** The 4xx an HTTP+SSE event stream may get and still come up on another try: a timeout, a rate limit; 401/403 are the credentials' (oauthRefusalHint). */
const PASSING_OR_CREDENTIAL_STATUS = new Set([401, 403, 408, 429]);

/**
 * The GET of an old HTTP+SSE server's event stream answered with a 4xx that is about the URL or
 * the request (400, 404, 410, …): the same GET gets the same answer, so it is the entry to fix,
 * not a connect to retry with backoff.
 */
function isRefusedEventStream(error: unknown): boolean {
  return error instanceof SseError && typeof error.code === 'number' && error.code >= 400 && error.code < 500 && !PASSING_OR_CREDENTIAL_STATUS.has(error.code);
}

/**
 * An entry pinned to 2026-07-28 (`"protocol": "modern"`) whose server answered without offering
 * it: a legacy server, which will not learn 2026-07-28 by being asked again. (A transport that
 * closed before the server offered anything is a crash, and stays transient.)
 */
export function isPinnedEraRefusal(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && /the server did not offer pinned protocol version/.test(error.message);
}

/**
 * The server refused the revision it was addressed in (-32022), naming those it speaks. Over
 * Streamable HTTP a 2026-07-28 server answers a legacy `initialize` so with HTTP 400, whose
 * JSON-RPC body the SDK keeps as text: read from there as well, since that 400 would otherwise
 * send the connect on to SSE, whose 405 says nothing of versions.
 */
export function unsupportedVersionIn(error: unknown): UnsupportedProtocolVersionError | undefined {
  if (error instanceof UnsupportedProtocolVersionError) return error;
  if (!(error instanceof SdkHttpError) || error.status !== 400 || typeof error.data.text !== 'string') return undefined;
  const refusal = jsonRpcErrorIn(error.data.text);
  if (refusal?.code !== UNSUPPORTED_PROTOCOL_VERSION || !Array.isArray(refusal.data?.supported)) return undefined;
  const { supported, requested } = refusal.data;
  const message = typeof refusal.message === 'string' ? refusal.message : 'Unsupported protocol version';
  return new UnsupportedProtocolVersionError({ supported, requested: typeof requested === 'string' ? requested : '' }, message);
}

function jsonRpcErrorIn(text: string): { code?: unknown; message?: unknown; data?: { supported?: unknown; requested?: unknown } } | undefined {
  try {
    const body: unknown = JSON.parse(text);
    const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    return typeof error === 'object' && error !== null ? error : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A server that speaks only 2026-07-28 refused an earlier revision (-32022): the entry pins
 * `"protocol": "legacy"`, and only the entry can change that. Read from the code and `data`, so
 * a redacted copy (src/redact.ts) still tells.
 */
export function speaksOnlyModern(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, data } = error as { code?: unknown; data?: { supported?: unknown } };
  return code === UNSUPPORTED_PROTOCOL_VERSION && Array.isArray(data?.supported) && data.supported.includes(MODERN_REVISION);
}

/** Any refusal over protocol versions (-32022, the server's or one said for it), read from its code so a redacted copy still tells. */
export function isVersionRefusal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNSUPPORTED_PROTOCOL_VERSION;
}

/**
 * A server's error answer with its JSON-RPC code in front, as the v1 SDK wrote it ("MCP error
 * -32000: …"): the v2 SDK passes the server's words alone, and the code tells a person (and a
 * log search) what kind of refusal it was. A version refusal this client worded is not a
 * server's answer: its words are shown alone.
 */
export function withErrorCode(error: unknown, message: string): string {
  const fromServer = error instanceof ProtocolError && !isVersionRefusalSaidHere(error);
  return fromServer && !message.startsWith('MCP error ') ? `MCP error ${error.code}: ${message}` : message;
}

/**
 * The SDK says an HTTP refusal its own way on each path: "Version negotiation failed: the server
 * denied access (HTTP 403)" (the era probe, where no version was in question), "Error POSTing to
 * endpoint: Forbidden" (legacy Streamable HTTP), "SSE error: Non-200 status code (404)" (the SSE
 * transport and the fallback to it). What the status means, with its number and text, on all of them.
 */
function statusInOurWords(status: number, statusText: string | undefined, retryAfter: unknown): string | undefined {
  const told = `HTTP ${status}${statusText ? ` ${statusText}` : STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
  if (status === 400) return `the server rejected the request (${told})`;
  if (status === 405) return 'this URL does not accept MCP requests over POST (HTTP 405) — check the path';
  if (status === 429) return `the server is rate-limiting (HTTP 429); retry after ${retryAfterText(retryAfter)}`;
  if (status === 401) return `the server asks for authorization (${told})`;
  if (status === 403) return `the server refused access (${told})`;
  if (status === 404) return `there is no MCP endpoint at that URL (${told})`;
  if (UNAVAILABLE_STATUS.has(status)) return `the server could not be reached (${told}, from it or a proxy or gateway in front of it)`;
  if (status >= 500) return `the server failed while answering (${told})`;
  if (status >= 400) return `the server refused the request (${told})`;
  return undefined;
}

/** A Retry-After as a person reads it: its seconds, or its date as the server wrote it. */
function retryAfterText(retryAfter: unknown): string {
  if (typeof retryAfter !== 'string' || retryAfter.trim() === '') return 'a while';
  return /^\d+$/.test(retryAfter.trim()) ? `${retryAfter.trim()} s` : terminalLine(retryAfter.trim());
}

/** The SDK's HTTP status messages that say no more than the status does (the body is told apart). */
const SDK_STATUS_MESSAGE = /^(Version negotiation failed: |Error POSTing to endpoint: |SSE error: Non-200 status code \(\d+\)$)/;

/**
 * Something that is not an MCP endpoint answers at the URL (a web page, a proxy's sign-in page):
 * the SDK says "Unexpected content type", on the first request inside the era probe's "unusable
 * reply". Said as what it means, with the content type the server sent.
 */
function unexpectedContentInOurWords(error: unknown): unknown {
  const found = error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed ? error.cause : error;
  if (!(found instanceof SdkError) || found.code !== SdkErrorCode.ClientHttpUnexpectedContent) return error;
  const type = (found.data as { contentType?: unknown } | undefined)?.contentType;
  const sent = typeof type === 'string' && type !== '' ? `content of type ${quoted(type)}` : 'no content type';
  return new Error(`the server answered with ${sent}, where an MCP endpoint answers with JSON or an event stream: what answers at that URL is not an MCP endpoint`, { cause: found });
}

/**
 * An HTTP failure in our words, with the server's error body, which the SDK keeps aside
 * (`data.text`) where nothing shows or redacts it: a copy that keeps the name, code and status.
 */
export function httpFailureInOurWords(error: unknown): unknown {
  const status = httpStatusOf(error);
  if (status === undefined || !(error instanceof Error)) return error;
  const http = error instanceof SdkHttpError ? error : undefined;
  const ours = SDK_STATUS_MESSAGE.test(error.message) ? statusInOurWords(status, http?.statusText, http?.data.retryAfter) : undefined;
  const said = ours ?? error.message;
  // A 405 and a 429 say all there is in their words; another status's body says what went wrong.
  const body = ours !== undefined && (status === 405 || status === 429) ? undefined : http?.data.text;
  const told = typeof body === 'string' && body !== '' && !said.includes(body.slice(0, 64)) ? `${said}: ${body}` : said;
  if (told === error.message) return error;
  const copy = new Error(told);
  copy.name = error.name;
  return Object.assign(copy, { code: (error as { code?: unknown }).code, status });
}

/**
 * The era probe is the first request, so a server that cannot be reached fails it, and the SDK
 * says "Version negotiation probe failed: fetch failed": no version was asked of anyone. The
 * network error beneath says what happened (and its cause, which address and why); so does an
 * HTTP+SSE server's message endpoint that refused the probe's POST.
 */
export function unwrapUnreachableProbe(error: unknown): unknown {
  const probeFailed = error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed;
  return probeFailed && (isUnreachable(error.cause) || error.cause instanceof SseEndpointRefusedError) ? error.cause : error;
}

/**
 * fetch refuses some ports before sending anything (the Fetch standard's "bad ports": 1, 6000,
 * 6667, …), saying "fetch failed" with "bad port" beneath; the SSE transport keeps only the words.
 * Unlike a refused connection, no retry can ever reach a server there.
 */
export function isBlockedPort(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (isUnreachable(current) && current.cause instanceof Error && current.cause.message === 'bad port') return true;
    if (current instanceof SseError && current.message.endsWith('fetch failed: bad port')) return true;
  }
  return false;
}

const BLOCKED_PORT =
  'fetch refuses to connect to the port of its "url", one of the "bad ports" the Fetch standard blocks (such as 1, 6000 or 6667), so no retry can reach it: run the server on another port and change the "url"';

/** An HTTP request that reached no server (refused, reset, no route; its cause says which): the server may be back soon. */
export function isUnreachable(error: unknown): boolean {
  return error instanceof TypeError && error.message === 'fetch failed';
}

/**
 * Node's fetch says only "fetch failed"; why (`connect ECONNREFUSED 127.0.0.1:8808`,
 * `getaddrinfo ENOTFOUND host`, `bad port`) is in the cause below it, where a person has to look.
 */
function fetchFailureCauseOf(error: unknown): (Error & { code?: unknown }) | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++, current = current.cause) {
    if (isUnreachable(current)) return current.cause instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

/**
 * "fetch failed" with the cause beneath it and its code (`fetch failed (other side closed, UND_ERR_SOCKET)`,
 * `fetch failed (connect ECONNREFUSED 127.0.0.1:8808)`): what a person needs to tell a stopped server from a cut connection.
 */
export function fetchFailureInWords(error: Error): string {
  const cause = fetchFailureCauseOf(error);
  if (!cause) return error.message;
  const code = typeof cause.code === 'string' && !cause.message.includes(cause.code) ? `, ${cause.code}` : '';
  return `${error.message} (${cause.message}${code})`;
}

/** The reason with the cause beneath "fetch failed", and for a refused connection what to check. */
function withFetchFailureCause(reason: string, error: unknown): { reason: string; hint: string } {
  const cause = fetchFailureCauseOf(error);
  if (!cause || reason.includes(cause.message)) return { reason, hint: '' };
  const hint = cause.code === 'ECONNREFUSED' ? ' Nothing is listening at that address: is the server running, and is the "url" right?' : '';
  return { reason: `${reason} (${cause.message})`, hint };
}

/**
 * A command that could not be started for want of this machine's resources, not for its own fault:
 * Node's "spawn node EMFILE" names neither, so the connect error says which limit ran out.
 */
const SPAWN_SHORTAGE_HINTS: Readonly<Record<string, string>> = {
  EMFILE: ' This process has too many open files: raise its limit (ulimit -n) or use fewer servers at once.',
  ENFILE: ' The system has too many open files: close some programs, or use fewer servers at once.',
  EAGAIN: ' The system refused another process (ulimit -u, or a container\'s process limit): raise the limit, or use fewer servers at once.',
  ENOMEM: ' The system is out of memory: free some, or use fewer servers at once.',
};

/** A process that ended at start with its stderr naming a shortage: the machine's limits, not the entry, are what to change. */
function shortageAtStartHint(error: unknown, stderrTail: string): string {
  const shortage = shortageAtStart(error, stderrTail);
  if (shortage === undefined) return '';
  const { short, raise } = SHORTAGE_WORDS[shortage];
  return ` Its stderr says this machine gave it no more ${short}: raise ${raise}, or use fewer servers at once.`;
}

function spawnShortageHint(error: unknown): string {
  if (!(error instanceof Error)) return '';
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  return typeof syscall === 'string' && syscall.startsWith('spawn') && typeof code === 'string' ? (SPAWN_SHORTAGE_HINTS[code] ?? '') : '';
}

/** What went wrong while connecting, in words, with the stderr tail where there is one. */
export function connectFailure(
  server: string,
  error: unknown,
  classify: (error: unknown) => boolean,
  stderrTail: string,
  secrets: readonly string[],
  /** The attempt ran out of its connectTimeoutMs. */
  timedOut = false,
): McpServerError {
  const configError = classify(error);
  const status = httpStatusOf(error);
  const told = isBlockedPort(error) ? new ConfigInvalidError(server, 'url', BLOCKED_PORT) : httpFailureInOurWords(unexpectedContentInOurWords(error));
  // A server may echo a header or its environment back in an error: those never go further.
  const network = withFetchFailureCause(errorMessage(told), error);
  const reason = capErrorText(redact(withErrorCode(told, network.reason), secrets));
  const hint = !configError
    ? network.hint || spawnShortageHint(error) || shortageAtStartHint(error, stderrTail)
    : error instanceof ListingLimitError
      ? error.hint
      : isOverLimit(error)
      ? ' It will not be retried.'
      : isPinnedEraRefusal(error)
      ? ' The server speaks an earlier revision: set its entry\'s "protocol" to "auto" (or "legacy"); it will not be retried.'
      : error instanceof UnsupportedProtocolVersionError && speaksOnlyModern(error)
      ? ` The server speaks only ${offeredVersions(error)}: set its entry's "protocol" to "auto" or "modern"; it will not be retried.`
      : error instanceof UnsupportedProtocolVersionError
      ? ' The server and this client share no protocol version: the older side needs an update; it will not be retried.'
      : isOAuthRefusal(error)
      ? oauthRefusalHint(error)
      : status === 401 || status === 403
        ? ' The server refused the credentials: check the entry\'s "headers", or log in.'
      : isRefusedEventStream(error)
        ? ' That was the event stream of the old HTTP+SSE transport: check the "url" (and the entry\'s "type" and "protocol": a Streamable HTTP server takes "type": "http"); it will not be retried.'
        : ' Fix the server entry; it will not be retried.';
  return new McpServerError(
    configError ? 'CONFIG_ERROR' : 'CONNECT_FAILED',
    server,
    `Could not connect to MCP server ${quoted(server)}: ${reason}${reason.endsWith('.') ? '' : '.'}${hint}` + (stderrTail ? `\nLast stderr lines:\n${stderrTail}` : ''),
    { cause: redactError(told, secrets), stderrTail, timedOut },
  );
}

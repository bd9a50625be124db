import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { OAuthError, ServerError, TemporarilyUnavailableError, TooManyRequestsError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServerError } from '../../machines/errors.js';
import { redact, redactError } from '../redact.js';
import { capErrorText } from '../text-limits.js';
import { MessageTooLargeError } from '../transports/message-size.js';
import { OAuthLoginRequiredError, OAuthScopeRefusedError } from '../errors/oauth.js';
import { ConfigInvalidError } from '../errors/config-invalid.js';
import { errorMessage } from '../../machines/to-error.js';


/**
 * A server sent more than a listing accepts (src/connection/manifest.ts): it would do so again,
 * so it is not retried.
 */
export class ListingLimitError extends Error {
  override name = 'ListingLimitError';
  constructor(
    readonly server: string,
    what: string,
  ) {
    super(`the server ${what}, more than mcp-statechart accepts`);
  }
}

/** The server sent more than is accepted: too many entries, or a message over the size limit. */
function isOverLimit(error: unknown): boolean {
  return error instanceof ListingLimitError || error instanceof MessageTooLargeError;
}

const CONFIG_ERRNO = new Set(['ENOENT', 'EACCES', 'ENOTDIR', 'ERR_INVALID_URL']);
const CONFIG_HTTP_STATUS = new Set([401, 403, 404, 405]);

function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) return error.code;
  return undefined;
}

/**
 * OAuth said no in a way a retry cannot change: a login is needed, a scope is refused, or the
 * authorization server rejected the client or grant (its outages and rate limits stay transient).
 */
function isOAuthRefusal(error: unknown): boolean {
  if (error instanceof OAuthLoginRequiredError || error instanceof OAuthScopeRefusedError) return true;
  const passing = error instanceof ServerError || error instanceof TemporarilyUnavailableError || error instanceof TooManyRequestsError;
  return error instanceof OAuthError && !passing;
}

/**
 * The default `isConfigError`: a missing or forbidden command, a bad URL, an invalid entry,
 * HTTP 401/403 (no auth provider), an OAuth login that is needed or refused, 404/405 on
 * initialize, an unsupported protocol version.
 * Everything else (timeouts, refused connections, 5xx, crashes) is transient.
 */
export function isConfigError(error: unknown): boolean {
  if (error instanceof ConfigInvalidError || isOverLimit(error)) return true;
  if (error instanceof Error && error.name === 'UnauthorizedError') return true;
  if (isOAuthRefusal(error)) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && CONFIG_ERRNO.has(code)) return true;
  const status = httpStatusOf(error);
  if (status !== undefined && CONFIG_HTTP_STATUS.has(status)) return true;
  return error instanceof Error && /protocol version is not supported/i.test(error.message);
}

/** What went wrong while connecting, in words, with the stderr tail where there is one. */
export function connectFailure(
  server: string,
  error: unknown,
  classify: (error: unknown) => boolean,
  stderrTail: string,
  secrets: readonly string[],
): McpServerError {
  const configError = classify(error);
  // A server may echo a header or its environment back in an error: those never go further.
  const reason = capErrorText(redact(errorMessage(error), secrets));
  const status = httpStatusOf(error);
  const hint = !configError
    ? ''
    : isOverLimit(error)
      ? ' It will not be retried.'
      : isOAuthRefusal(error)
      ? ' The server refused the credentials; it will not be retried.'
      : status === 401 || status === 403
        ? ' The server refused the credentials: check the entry\'s "headers", or log in.'
        : ' Fix the server entry; it will not be retried.';
  return new McpServerError(
    configError ? 'CONFIG_ERROR' : 'CONNECT_FAILED',
    server,
    `Could not connect to MCP server "${server}": ${reason}.${hint}` + (stderrTail ? `\nLast stderr lines:\n${stderrTail}` : ''),
    { cause: redactError(error, secrets), stderrTail },
  );
}

import type { FetchLike } from '@modelcontextprotocol/client';
import { OAuthRegistrationUnreadableError } from '../errors/oauth.js';
import { redactUrl } from '../redact.js';

/** The last dynamic client registration request (RFC 7591) a fetch sent, and the status it was answered with. */
export interface RegistrationSeen {
  url?: string;
  status?: number;
}

/** `base`, noting each registration request: a JSON POST naming `redirect_uris` (token requests are forms). */
export function notingRegistration(base: FetchLike | undefined, seen: RegistrationSeen): FetchLike {
  return async (url, init) => {
    const registering = init?.method === 'POST' && typeof init.body === 'string' && init.body.includes('"redirect_uris"');
    const response = await (base ?? fetch)(url, init);
    if (registering) Object.assign(seen, { url: String(url), status: response.status });
    return response;
  };
}

/**
 * The SDK reads a registration answered 2xx as JSON at once: an empty body says only "Unexpected
 * end of JSON input", a web page "Unexpected token '<'", JSON without a client ID the schema's
 * words. Said as what happened there, with the way round it (a client registered by hand).
 */
export function unreadableRegistration(server: string, seen: RegistrationSeen, error: unknown): OAuthRegistrationUnreadableError | undefined {
  if (seen.url === undefined || seen.status === undefined || seen.status < 200 || seen.status >= 300) return undefined;
  const empty = error instanceof SyntaxError && /end of JSON input/.test(error.message);
  const what = empty ? 'an empty body' : error instanceof SyntaxError ? 'a body that is not JSON' : error instanceof Error && error.name === 'ZodError' ? 'JSON without a usable client ID' : undefined;
  return what === undefined ? undefined : new OAuthRegistrationUnreadableError(server, redactUrl(seen.url), seen.status, what);
}

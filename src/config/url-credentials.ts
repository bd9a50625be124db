/**
 * A `url` with a user name or password (`http://me:pw@host/mcp`): fetch refuses to send it, so such
 * a server never connects, and no OAuth login can change that.
 */

/** Why such a url cannot work and what to write instead; quotes no value. */
export const URL_CREDENTIALS_REFUSED =
  'the "url" carries a user name or password, which fetch refuses to send, so it cannot connect: give the credential in "headers" (an "Authorization" header) instead';

export function carriesCredentials(url: unknown): boolean {
  const parsed = typeof url === 'string' ? URL.parse(url) : null;
  return parsed !== null && (parsed.username !== '' || parsed.password !== '');
}

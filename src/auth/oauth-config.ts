/**
 * The optional `oauth` field of an http/sse server entry (the entry type lets unknown fields
 * through, so it is checked here):
 *
 *   "oauth": { "clientId": "…", "clientSecret": "…", "scopes": ["read", "write"] }
 *   "oauth": { "clientId": "…", "clientSecret": "…", "issuer": "https://auth.example.com" }
 *   "oauth": false            // never use OAuth for this server
 *
 * Without `clientId` the client registers itself (dynamic client registration) or uses a client
 * ID metadata document. Messages never quote a value: the secret must not reach a log.
 */
import { z } from 'zod';
import type { McpServerConfig, McpServerEntry } from '../../machines/types.js';
import { ConfigInvalidError } from '../errors/config-invalid.js';
import { joinScopes } from './scopes.js';

const oauthEntrySchema = z.strictObject({
  clientId: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
  clientSecret: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
  /** An array of scopes, or one space-separated string. */
  scopes: z
    .union([z.string(), z.array(z.string())], { error: 'must be a string or an array of strings' })
    .optional(),
  /** An https URL used as the client ID where the authorization server supports client ID metadata documents. */
  clientMetadataUrl: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).optional(),
  /** The one authorization server (issuer) credentials go to: a server that names another one is refused. */
  issuer: z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).optional(),
  /** A fixed loopback port for the login redirect, for a pre-registered client whose redirect URI names a port. */
  callbackPort: z.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be a port').max(65535, 'must be a port').optional(),
});

export interface OAuthEntry {
  clientId?: string;
  clientSecret?: string;
  /** Space-separated. */
  scope?: string;
  clientMetadataUrl?: string;
  /** The pinned authorization server: no client, secret or token is sent to any other. */
  issuer?: string;
  callbackPort?: number;
}

/** The entry's OAuth settings (`{}` when it has none), or `false` when OAuth is turned off for it. */
export function readOAuthEntry(server: string, config: McpServerEntry): OAuthEntry | false {
  const raw = config.oauth;
  if (raw === undefined || raw === true) return {};
  if (raw === false) return false;
  const parsed = oauthEntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path[0];
    const field = typeof key === 'string' ? `oauth.${key}` : 'oauth';
    const problem =
      issue?.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((name) => `"${name}"`).join(', ')}`
        : issue?.code === 'invalid_type' && key === undefined
          ? 'must be an object or false'
          : (issue?.message ?? 'is invalid');
    throw new ConfigInvalidError(server, field, `the OAuth settings are invalid: ${field} ${problem}`);
  }
  const { scopes, ...rest } = parsed.data;
  if (rest.clientSecret && !rest.clientId) {
    throw new ConfigInvalidError(server, 'oauth.clientId', 'the OAuth settings are invalid: a "clientSecret" needs its "clientId"');
  }
  return { ...rest, scope: joinScopes(...(Array.isArray(scopes) ? scopes : [scopes])) };
}

/** An entry that sends its own `Authorization` header manages its credentials itself. */
export function hasStaticAuthorization(config: McpServerConfig): boolean {
  return Object.keys(config.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

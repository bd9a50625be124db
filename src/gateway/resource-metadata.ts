/**
 * The gateway as an OAuth 2.1 resource server, as the MCP authorization spec asks: the Protected
 * Resource Metadata document (RFC 9728) and the `WWW-Authenticate` challenge of a 401 naming it.
 */
import type { GatewayOAuth } from './gateway-file.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
  resource_name: string;
}

export function protectedResourceMetadata(oauth: GatewayOAuth): ProtectedResourceMetadata {
  return {
    resource: oauth.audience,
    authorization_servers: [oauth.issuer],
    bearer_methods_supported: ['header'],
    resource_name: 'mcp-statechart gateway',
  };
}

/**
 * Where the document is served: RFC 9728 puts the resource's path after the well-known one
 * (`/.well-known/oauth-protected-resource/mcp` for `https://host/mcp`); clients that do not follow
 * the challenge try the bare one too, so both answer.
 */
export function metadataPaths(oauth: GatewayOAuth): string[] {
  const resourcePath = new URL(oauth.audience).pathname.replace(/\/$/, '');
  return resourcePath === '' ? [WELL_KNOWN] : [`${WELL_KNOWN}${resourcePath}`, WELL_KNOWN];
}

export function metadataUrl(oauth: GatewayOAuth): string {
  return new URL(metadataPaths(oauth)[0] as string, oauth.audience).href;
}

/** Why a request was not let in, in RFC 6750's terms. No error: no credentials were sent at all. */
export interface ChallengeError {
  error: 'invalid_request' | 'invalid_token';
  description: string;
}

/** The `WWW-Authenticate` value of a 401. The description is ours (never text from the token). */
export function bearerChallenge(oauth: GatewayOAuth | undefined, reason?: ChallengeError): string {
  const parameters = oauth ? [`resource_metadata="${metadataUrl(oauth)}"`] : ['realm="mcp-statechart"'];
  if (reason) parameters.push(`error="${reason.error}"`, `error_description="${reason.description.replace(/["\\]/g, '')}"`);
  return `Bearer ${parameters.join(', ')}`;
}

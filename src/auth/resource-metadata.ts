/**
 * RFC 9728 protected-resource metadata that exists but cannot be used. The SDK's discovery takes
 * such metadata (an error status, not JSON, no `authorization_servers`) for none, and silently
 * takes the MCP server's origin as the authorization server: a login then registers and
 * authorizes at an address the server never named. This looks up the same metadata the SDK
 * does, at the same addresses, so that `login` and `doctor` can say what is wrong with it.
 */
import { quoted } from '../../machines/control-characters.js';
import { checkResourceAllowed, LATEST_PROTOCOL_VERSION, resourceUrlFromServerUrl, type FetchLike } from '@modelcontextprotocol/client';
import { OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/core';
import { redact, secretsOf } from '../redact.js';
import { firstBytesOf } from '../transports/message-size.js';
import { inferTransport } from '../../machines/options.js';
import type { McpServerConfig } from '../../machines/types.js';
import { answerFault } from './oauth-answers.js';
import { askWithoutToken } from './unauthenticated-answer.js';
import { refusingUnsafeOAuthUrls } from './safe-oauth-url.js';
import { UnsafeOAuthUrlError } from './link-local.js';

/** Metadata is a few hundred bytes; a larger answer is not metadata, and is not read further. */
const MAX_METADATA_BYTES = 64 * 1024;
const LOOKUP_TIMEOUT_MS = 5_000;
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ResourceMetadataFault {
  /** Where the metadata was found. */
  url: string;
  /** What is wrong with it, in words; never a value from it. */
  fault: string;
  /** True when the SDK then uses the server's origin as the authorization server; false when a login refuses it. */
  fallsBack: boolean;
}

/**
 * What is wrong with the server's protected-resource metadata, or undefined when it is usable,
 * absent (404 at the well-known addresses), or unreachable (the login's own request then says so). `named`: the URL the
 * server's 401 challenge named, which is the only one asked then, as the SDK does.
 */
export async function resourceMetadataFault(serverUrl: URL, named: URL | undefined, fetchFn?: FetchLike): Promise<ResourceMetadataFault | undefined> {
  // The server's challenge names this address: checked as every OAuth request of a renewal is.
  const safeFetch = refusingUnsafeOAuthUrls(fetchFn);
  let response: Response | undefined;
  let url: URL | undefined;
  try {
    for (const candidate of named ? [named] : wellKnownUrls(serverUrl)) {
      await response?.body?.cancel().catch(() => {});
      url = candidate;
      response = await safeFetch(candidate, { headers: { 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION }, signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
      // The SDK's rule for trying the origin's address after the path's.
      if (response.ok || (response.status >= 500 && response.status !== 502)) break;
    }
    if (!response || !url) return undefined;
    const where = `${url.origin}${url.pathname}`;
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      // Not found at a well-known address: there is none. At the address the server's own challenge names: it is missing.
      if (response.status === 404 && !named) return undefined;
      const fault = response.status === 404 ? "is not there (HTTP 404), though the server's 401 names it" : `answered HTTP ${response.status}`;
      return { url: where, fault, fallsBack: true };
    }
    const text = response.body ? (await firstBytesOf(response.body, MAX_METADATA_BYTES)).toString('utf8') : '';
    return faultOf(text, serverUrl, where);
  } catch (error) {
    // The login's own discovery refuses the same address: say so before it does.
    if (error instanceof UnsafeOAuthUrlError && url) return { url: `${url.origin}${url.pathname}`, fault: `is refused: ${error.message}`, fallsBack: false };
    return undefined;
  }
}

function faultOf(text: string, serverUrl: URL, url: string): ResourceMetadataFault | undefined {
  const shape = answerFault(text, OAuthProtectedResourceMetadataSchema, 'a JSON object naming the resource and its authorization servers');
  if (shape) return { url, fault: shape, fallsBack: true };
  const metadata = OAuthProtectedResourceMetadataSchema.parse(JSON.parse(text));
  if (!checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(serverUrl), configuredResource: metadata.resource })) {
    return { url, fault: `names another resource than this server (${quoted(metadata.resource)}, not ${serverUrl.origin}${serverUrl.pathname})`, fallsBack: false };
  }
  if (metadata.authorization_servers === undefined) return { url, fault: 'names no authorization server (authorization_servers is missing)', fallsBack: true };
  if (metadata.authorization_servers.length === 0) return { url, fault: 'names no authorization server (authorization_servers is empty)', fallsBack: true };
  return undefined;
}

/** The SDK's addresses: the one with the server's path, then the origin's. */
function wellKnownUrls(serverUrl: URL): URL[] {
  const path = serverUrl.pathname.endsWith('/') ? serverUrl.pathname.slice(0, -1) : serverUrl.pathname;
  const withPath = new URL(`${WELL_KNOWN}${path}`, serverUrl);
  withPath.search = serverUrl.search;
  return serverUrl.pathname === '/' ? [withPath] : [withPath, new URL(WELL_KNOWN, serverUrl)];
}

/**
 * The sentence a person reads: where, what is wrong, and what the login does about it. Its URLs
 * carry the entry's path, where a key may be written: the entry's secrets are redacted.
 */
export function describeResourceMetadataFault(server: string, config: McpServerConfig, found: ResourceMetadataFault, serverUrl: URL): string {
  const then = found.fallsBack
    ? `so a login ignores it and uses the server's origin (${serverUrl.origin}) as its authorization server, which may not be one`
    : 'so a login refuses it';
  return redact(`the protected-resource metadata of MCP server ${quoted(server)} (${found.url}) ${found.fault}: ${then}; tell whoever runs the server`, secretsOf(config));
}

/**
 * For a server that wants a login (`doctor`): the sentence about its broken metadata, or undefined
 * when it is fine or cannot be asked. Asks as `login` would: without a token, then the metadata
 * its challenge names.
 */
export async function resourceMetadataWarning(server: string, config: McpServerConfig, fetchFn?: FetchLike): Promise<string | undefined> {
  const kind = inferTransport(config);
  if ((kind !== 'http' && kind !== 'sse') || typeof config.url !== 'string' || !URL.canParse(config.url)) return undefined;
  const serverUrl = new URL(config.url);
  try {
    const answer = await askWithoutToken(server, config, kind, serverUrl, fetchFn);
    if (answer.status !== 401 && answer.status !== 403) return undefined;
    const found = await resourceMetadataFault(serverUrl, answer.resourceMetadataUrl, fetchFn);
    return found && describeResourceMetadataFault(server, config, found, serverUrl);
  } catch {
    return undefined;
  }
}

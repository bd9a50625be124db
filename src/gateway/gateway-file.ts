/**
 * The `--gateway <file>`: who may call the gateway and what each of them may reach.
 *
 * ```json
 * { "identities": { "alice": { "token": "sha256:<hex>", "allow": ["*"] },
 *                   "bob":   { "token": "sha256:<hex>", "deny": ["secret*"], "denyTools": ["fs/write_*"],
 *                              "approve": "destructive", "callsPerMinute": 120, "listenStreams": 4, "slowReaderSeconds": 10,
 *                              "requestBytesInFlight": 16777216, "callsInFlight": 16, "groups": ["admins"] } },
 *   "oauth": { "issuer": "https://auth.example.com", "audience": "https://mcp.example.com/mcp",
 *              "identityClaim": "sub", "groupsClaim": "groups" },
 *   "groups": { "admins": { "allow": ["*"] } } }
 * ```
 *
 * Every problem names the identity or group and the field, and never quotes a value: a person
 * who pasted a bearer token where its hash belongs must not find it again in a log.
 */
import { promises as fs } from 'node:fs';
import { APPROVAL_POLICIES, type ApprovalPolicy } from '../tools/approval.js';
import { isJsonObject, ownValue } from '../config/null-proto.js';
import { parseJson } from '../config/parse-json.js';
import { parseTokenDigest, type TokenDigest } from './bearer-token.js';

/** What an identity or a group may reach. Absent lists: every server (tool) not denied. */
export interface AccessRules {
  allow?: string[];
  deny?: string[];
  allowTools?: string[];
  denyTools?: string[];
  approve?: ApprovalPolicy;
  callsPerMinute?: number;
  /** `subscriptions/listen` streams it may hold open at once on one replica (default DEFAULT_LISTEN_STREAMS). */
  listenStreams?: number;
  /** Seconds an answer may wait, unsent, for a client that does not read it (default DEFAULT_SLOW_READER_SECONDS). */
  slowReaderSeconds?: number;
  /** Bytes of request bodies it may have in flight at once on one replica (default DEFAULT_REQUEST_BYTES_IN_FLIGHT). */
  requestBytesInFlight?: number;
  /** Calls (tools/call) it may have running at once on one replica (default DEFAULT_CALLS_IN_FLIGHT). */
  callsInFlight?: number;
}

export interface GatewayIdentity extends AccessRules {
  /** The SHA-256 of its bearer token; absent for an identity that only signs in through `oauth`. */
  token?: TokenDigest;
  groups?: string[];
}

export interface GatewayOAuth {
  issuer: string;
  /** The gateway's own URL as the tokens name it (`aud`), e.g. `https://mcp.example.com/mcp`. */
  audience: string;
  /** The claim that names the identity. Default `sub`. */
  identityClaim: string;
  /** The claim listing the identity's groups (an array of names, or one space-separated string). Absent: none. */
  groupsClaim?: string;
  /** Where the issuer's keys are; default: read from the issuer's metadata. */
  jwksUri?: string;
  /** The signing algorithms accepted. Default: RS256, PS256, ES256, EdDSA. */
  algorithms: string[];
}

export interface GatewayConfig {
  identities: Map<string, GatewayIdentity>;
  groups: Map<string, AccessRules>;
  oauth?: GatewayOAuth;
}

export type GatewayFileResult = { ok: true; config: GatewayConfig } | { ok: false; problems: string[] };

export const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
/** Symmetric and unsigned algorithms have no place in a resource server that holds no shared secret. */
const ACCEPTABLE_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);
const MAX_PATTERNS = 1_000;
const MAX_ENTRIES = 10_000;
/** More calls than this per minute is not a limit anyone means. */
const MAX_CALLS_PER_MINUTE = 1_000_000;
/** Each open stream holds a socket and a server instance: an identity with no limit of its own may hold this many. */
export const DEFAULT_LISTEN_STREAMS = 8;
const MAX_LISTEN_STREAMS = 10_000;
/** An answer a client does not read is held in the replica's memory (the tool's whole result) until then. */
export const DEFAULT_SLOW_READER_SECONDS = 30;
const MAX_SLOW_READER_SECONDS = 3_600;
/**
 * A request's body is held several times over (the bytes, the parsed message, the copy sent on to
 * the server) until its call answers: 40 calls of 4 MB in flight from one token took a replica
 * from 120 MB to 1.2 GB.
 */
export const DEFAULT_REQUEST_BYTES_IN_FLIGHT = 64 * 1024 * 1024;
const MAX_REQUEST_BYTES_IN_FLIGHT = 4 * 1024 * 1024 * 1024;
/**
 * A call running costs the replica about 80 KB (its server instance, the call sent on, its answer
 * stream) whatever its body's size: one token's 10,000 small calls at once took a replica from
 * 255 MB to 1.08 GB and held other identities' calls for 10 s. A host rarely has more than a few.
 */
export const DEFAULT_CALLS_IN_FLIGHT = 64;
const MAX_CALLS_IN_FLIGHT = 100_000;

const RULE_FIELDS = ['allow', 'deny', 'allowTools', 'denyTools', 'approve', 'callsPerMinute', 'listenStreams', 'slowReaderSeconds', 'requestBytesInFlight', 'callsInFlight'];
const IDENTITY_FIELDS = new Set([...RULE_FIELDS, 'token', 'groups']);
const GROUP_FIELDS = new Set(RULE_FIELDS);
const OAUTH_FIELDS = new Set(['issuer', 'audience', 'identityClaim', 'groupsClaim', 'jwksUri', 'algorithms']);
const TOP_FIELDS = new Set(['identities', 'oauth', 'groups']);

/** Reads and checks the file; a file that cannot be read is one problem, never a throw. */
export async function loadGatewayFile(file: string): Promise<GatewayFileResult> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = isJsonObject(error) && typeof error.code === 'string' ? error.code : 'unreadable';
    return { ok: false, problems: [`gateway file ${file}: cannot be read (${code})`] };
  }
  const parsed = parseJson(text);
  if (!parsed.ok) return { ok: false, problems: [`gateway file ${file}: line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`] };
  const result = parseGatewayConfig(parsed.value);
  return result.ok ? result : { ok: false, problems: result.problems.map((problem) => `gateway file ${file}: ${problem}`) };
}

export function parseGatewayConfig(value: unknown): GatewayFileResult {
  const problems: string[] = [];
  if (!isJsonObject(value)) return { ok: false, problems: ['must be a JSON object with "identities" (and "oauth", "groups")'] };
  unknownFields(value, TOP_FIELDS, 'the file', problems);

  const groups = new Map<string, AccessRules>();
  for (const [name, entry] of entries(ownValue(value, 'groups'), 'groups', problems)) {
    const where = `group "${name}"`;
    if (!isJsonObject(entry)) {
      problems.push(`${where} must be an object like { "allow": ["*"] }`);
      continue;
    }
    unknownFields(entry, GROUP_FIELDS, where, problems);
    groups.set(name, accessRules(entry, where, problems));
  }

  const identities = new Map<string, GatewayIdentity>();
  const tokenOwners = new Map<string, string>();
  for (const [name, entry] of entries(ownValue(value, 'identities'), 'identities', problems)) {
    const where = `identity "${name}"`;
    if (!isJsonObject(entry)) {
      problems.push(`${where} must be an object like { "token": "sha256:<hex>", "allow": ["*"] }`);
      continue;
    }
    unknownFields(entry, IDENTITY_FIELDS, where, problems);
    const identity: GatewayIdentity = accessRules(entry, where, problems);
    const token = ownValue(entry, 'token');
    if (token !== undefined) {
      const digest = parseTokenDigest(token);
      if (digest === undefined) {
        problems.push(
          `${where}: "token" must be "sha256:" and the 64 hex digits of the SHA-256 of its bearer token ` +
            `(printf %s "$TOKEN" | sha256sum), never the token itself`,
        );
      } else {
        const sameToken = tokenOwners.get(digest.hex);
        if (sameToken !== undefined) problems.push(`${where}: "token" is the same as identity "${sameToken}"'s; each identity needs its own`);
        tokenOwners.set(digest.hex, name);
        identity.token = digest;
      }
    }
    const memberOf = stringList(ownValue(entry, 'groups'), `${where}: "groups"`, problems);
    for (const group of memberOf ?? []) {
      if (!groups.has(group)) problems.push(`${where}: "groups" names "${group}", which is not in "groups"`);
    }
    if (memberOf !== undefined) identity.groups = memberOf;
    identities.set(name, identity);
  }

  const oauth = oauthSection(ownValue(value, 'oauth'), problems);
  if (identities.size === 0 && ownValue(value, 'oauth') === undefined) {
    problems.push('names no one: add "identities" with a token each, or "oauth"');
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config: { identities, groups, ...(oauth && { oauth }) } };
}

function entries(value: unknown, field: string, problems: string[]): [string, unknown][] {
  if (value === undefined) return [];
  if (!isJsonObject(value)) {
    problems.push(`"${field}" must be an object keyed by name`);
    return [];
  }
  const names = Object.keys(value);
  if (names.length > MAX_ENTRIES) {
    problems.push(`"${field}" has ${names.length} entries; at most ${MAX_ENTRIES}`);
    return [];
  }
  const valid: [string, unknown][] = [];
  for (const name of names) {
    if (name === '' || /[\u0000-\u001f\u007f]/.test(name)) problems.push(`"${field}" has a name that is empty or holds control characters`);
    else valid.push([name, value[name]]);
  }
  return valid;
}

function unknownFields(entry: Record<string, unknown>, known: ReadonlySet<string>, where: string, problems: string[]): void {
  for (const field of Object.keys(entry)) {
    // A misspelt "denyTools" would otherwise hand out what it was meant to take away.
    if (!known.has(field)) problems.push(`${where}: unknown field ${JSON.stringify(field.slice(0, 60))} (known: ${[...known].join(', ')})`);
  }
}

function accessRules(entry: Record<string, unknown>, where: string, problems: string[]): AccessRules {
  const rules: AccessRules = {};
  for (const field of ['allow', 'deny', 'allowTools', 'denyTools'] as const) {
    const list = stringList(ownValue(entry, field), `${where}: "${field}"`, problems);
    if (list !== undefined) rules[field] = list;
  }
  const approve = ownValue(entry, 'approve');
  if (approve !== undefined) {
    const policy = APPROVAL_POLICIES.find((known) => known === approve);
    if (policy === undefined) problems.push(`${where}: "approve" must be one of ${APPROVAL_POLICIES.join(', ')}`);
    else rules.approve = policy;
  }
  const calls = ownValue(entry, 'callsPerMinute');
  if (calls !== undefined) {
    if (typeof calls !== 'number' || !Number.isInteger(calls) || calls < 1 || calls > MAX_CALLS_PER_MINUTE) {
      problems.push(`${where}: "callsPerMinute" must be a whole number from 1 to ${MAX_CALLS_PER_MINUTE}`);
    } else rules.callsPerMinute = calls;
  }
  const streams = ownValue(entry, 'listenStreams');
  if (streams !== undefined) {
    if (typeof streams !== 'number' || !Number.isInteger(streams) || streams < 1 || streams > MAX_LISTEN_STREAMS) {
      problems.push(`${where}: "listenStreams" must be a whole number from 1 to ${MAX_LISTEN_STREAMS}`);
    } else rules.listenStreams = streams;
  }
  const slowReader = ownValue(entry, 'slowReaderSeconds');
  if (slowReader !== undefined) {
    if (typeof slowReader !== 'number' || !Number.isInteger(slowReader) || slowReader < 1 || slowReader > MAX_SLOW_READER_SECONDS) {
      problems.push(`${where}: "slowReaderSeconds" must be a whole number from 1 to ${MAX_SLOW_READER_SECONDS}`);
    } else rules.slowReaderSeconds = slowReader;
  }
  const requestBytes = ownValue(entry, 'requestBytesInFlight');
  if (requestBytes !== undefined) {
    if (typeof requestBytes !== 'number' || !Number.isInteger(requestBytes) || requestBytes < 1 || requestBytes > MAX_REQUEST_BYTES_IN_FLIGHT) {
      problems.push(`${where}: "requestBytesInFlight" must be a whole number from 1 to ${MAX_REQUEST_BYTES_IN_FLIGHT}`);
    } else rules.requestBytesInFlight = requestBytes;
  }
  const callsInFlight = ownValue(entry, 'callsInFlight');
  if (callsInFlight !== undefined) {
    if (typeof callsInFlight !== 'number' || !Number.isInteger(callsInFlight) || callsInFlight < 1 || callsInFlight > MAX_CALLS_IN_FLIGHT) {
      problems.push(`${where}: "callsInFlight" must be a whole number from 1 to ${MAX_CALLS_IN_FLIGHT}`);
    } else rules.callsInFlight = callsInFlight;
  }
  return rules;
}

function stringList(value: unknown, what: string, problems: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.length <= MAX_PATTERNS && value.every((item) => typeof item === 'string' && item !== '')) return value;
  problems.push(`${what} must be a list of at most ${MAX_PATTERNS} non-empty strings`);
  return undefined;
}

function oauthSection(value: unknown, problems: string[]): GatewayOAuth | undefined {
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) {
    problems.push('"oauth" must be an object like { "issuer": "https://…", "audience": "https://…/mcp" }');
    return undefined;
  }
  unknownFields(value, OAUTH_FIELDS, '"oauth"', problems);
  const issuer = url(ownValue(value, 'issuer'), 'issuer', problems);
  const audience = url(ownValue(value, 'audience'), 'audience', problems);
  const jwksUri = ownValue(value, 'jwksUri') === undefined ? undefined : url(ownValue(value, 'jwksUri'), 'jwksUri', problems);
  const identityClaim = claimName(ownValue(value, 'identityClaim'), 'identityClaim', problems) ?? 'sub';
  const groupsClaim = claimName(ownValue(value, 'groupsClaim'), 'groupsClaim', problems);
  const algorithms = stringList(ownValue(value, 'algorithms'), '"oauth": "algorithms"', problems) ?? DEFAULT_ALGORITHMS;
  const refused = algorithms.filter((algorithm) => !ACCEPTABLE_ALGORITHMS.has(algorithm));
  if (refused.length > 0) problems.push(`"oauth": "algorithms" may name only ${[...ACCEPTABLE_ALGORITHMS].join(', ')} (asymmetric signatures)`);
  if (issuer === undefined || audience === undefined) return undefined;
  return { issuer, audience, identityClaim, algorithms, ...(groupsClaim && { groupsClaim }), ...(jwksUri && { jwksUri }) };
}

function url(value: unknown, field: string, problems: string[]): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) {
    problems.push(`"oauth": "${field}" must be an absolute URL`);
    return undefined;
  }
  const parsed = new URL(value);
  // Plain http only for a loopback issuer (a test's, a local one); anything else travels the network.
  const loopback = parsed.hostname === '127.0.0.1' || parsed.hostname === 'localhost' || parsed.hostname === '[::1]';
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) {
    problems.push(`"oauth": "${field}" must use https (plain http only on 127.0.0.1 or localhost)`);
    return undefined;
  }
  return value;
}

function claimName(value: unknown, field: string, problems: string[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value !== '' && value.length <= 200) return value;
  problems.push(`"oauth": "${field}" must be a claim name`);
  return undefined;
}

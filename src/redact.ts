import type { McpServerEntry, McpServerManifest } from '../machines/types.js';
import { headerCredential, literalSecretsOf } from './literal-secrets.js';

/** Shorter values are too common to hunt for ("1", "dev") and are not credentials. */
const MIN_SECRET_LENGTH = 6;
export const REDACTED = '[redacted]';

/**
 * Where a config carries the values its `${VAR}`s expanded to (a symbol key: not serialized, not
 * part of any fingerprint, kept by spreads). A variable's value may be a token even in `args` or
 * a URL, where nothing else marks it as one.
 */
const EXPANDED_VALUES = Symbol('mcp-statechart.expandedValues');

export function rememberExpandedValues(config: McpServerEntry, values: readonly string[]): void {
  Object.defineProperty(config, EXPANDED_VALUES, { value: [...values], enumerable: true, configurable: true });
}

function expandedValues(config: McpServerEntry): readonly string[] {
  return (config as { [EXPANDED_VALUES]?: string[] })[EXPANDED_VALUES] ?? [];
}

/**
 * A config read from a file whose `${VAR}`s changed something → the entry as the file writes it.
 * A table, like the one below: the written entry (which may hold literal values) hangs on nothing
 * that is walked or compared.
 */
const writtenDefinitions = new WeakMap<McpServerEntry, McpServerEntry>();

export function rememberWrittenDefinition(config: McpServerEntry, written: McpServerEntry): void {
  writtenDefinitions.set(config, written);
}

/** The entry as its file writes it, for a config discovery expanded; undefined for any other. */
export function writtenDefinitionOf(config: McpServerEntry): McpServerEntry | undefined {
  return writtenDefinitions.get(config);
}

/**
 * A sealed definition (src/sealed-config.ts) → the config it stands for. A table, not a property:
 * nothing that walks or serializes the sealed definition can reach the values it hides.
 */
const expandedBySealed = new WeakMap<McpServerEntry, McpServerEntry>();

export function rememberSealed(sealed: McpServerEntry, expanded: McpServerEntry): void {
  expandedBySealed.set(sealed, expanded);
}

/** The config a sealed definition stands for, while this process holds it; undefined for one restored from a snapshot (or never sealed). */
export function expandedOfSealed(sealed: McpServerEntry): McpServerEntry | undefined {
  return expandedBySealed.get(sealed);
}

/**
 * The values of a server entry that must never be printed: every `env` value and every
 * `headers` value, the credential part of `Authorization: Bearer <token>`, an OAuth client
 * secret, every value a `${VAR}` expanded to, and the credentials written literally in `url`
 * and `args` (src/literal-secrets.ts says which). Of a sealed
 * definition: those of the config it stands for.
 */
export function secretsOf(sealedOrExpanded: McpServerEntry): string[] {
  const config = expandedBySealed.get(sealedOrExpanded) ?? sealedOrExpanded;
  const values = [...Object.values(config.env ?? {}), ...Object.values(config.headers ?? {}), ...expandedValues(config)];
  const clientSecret = (config.oauth as { clientSecret?: unknown } | undefined)?.clientSecret;
  if (typeof clientSecret === 'string') values.push(clientSecret);
  for (const header of Object.values(config.headers ?? {})) {
    const credential = headerCredential(header);
    if (credential) values.push(credential);
  }
  for (const literal of literalSecretsOf(config)) values.push(literal);
  return longestFirst(values);
}

/** The values long enough to be credentials, each once, longest first: a token inside a longer header value must not leave the rest behind. */
export function longestFirst(values: readonly unknown[]): string[] {
  const secrets = values.filter((value): value is string => typeof value === 'string' && value.length >= MIN_SECRET_LENGTH);
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) clean = clean.replaceAll(secret, REDACTED);
  return clean;
}

/** `https://user:pw@host/p?token=abc` → `https://[redacted]@host/p?token=[redacted]`; not a URL → as it is. */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  if (url.username === '' && url.password === '' && url.search === '') return text;
  const credentials = url.username !== '' || url.password !== '' ? `${REDACTED}@` : '';
  const query = [...url.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${REDACTED}`).join('&');
  // A URI without an authority (`urn:…`, `mailto:…`, a resource's own scheme) is not given one.
  const authority = url.href.startsWith(`${url.protocol}//`) ? `//${credentials}${url.host}` : '';
  return `${url.protocol}${authority}${url.pathname}${query ? `?${query}` : ''}${url.hash}`;
}

/**
 * A query or fragment parameter holds a credential when a word of its name (split at non-letters
 * and case changes: `api_key`, `apiKey`, `X-Api-Key`, `sessionId`) is one of these. Words that
 * ordinary words do not contain match anywhere in a word (`passw` covers `password` and `passwd`,
 * `jsessionid`, `accesstoken`); the short ones match only as a whole word or a known compound, so
 * `keyword`, `author`, `signal`, `barcode` and `zipcode` keep their values (`zip_code` does not:
 * `code` is OAuth's authorization code).
 */
const CREDENTIAL_STEM = /token|secret|passw|pwd|credential|session|cookie|bearer|jwt/;
const CREDENTIAL_WORD = /^(?:(?:auth|sig|key|code|pass)s?|apikey|accesskey|privatekey|authkey|authcode|passcode|passphrase|signature|authorization|oauth)$/;
const NAME_WORD = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g;

function namesCredential(name: string): boolean {
  return (name.match(NAME_WORD) ?? []).some((word) => {
    const lower = word.toLowerCase();
    return CREDENTIAL_STEM.test(lower) || CREDENTIAL_WORD.test(lower);
  });
}

const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i;

/**
 * The one rule for a URI kept at rest (a persisted snapshot's subscriptions and listed resources,
 * the manifest index): a value of the server's entry, the user info, and the value of each query
 * or fragment parameter whose name has a credential word (`namesCredential`) are `[redacted]`;
 * the rest stays as written (`?page=2`). The same text when it holds none of them.
 */
export function uriAtRest(uri: string, secrets: readonly string[]): string {
  const clean = redact(uri, secrets).replace(USER_INFO, `$1${REDACTED}@`);
  const hashAt = clean.indexOf('#');
  const beforeHash = hashAt === -1 ? clean : clean.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const path = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? '' : `?${parametersAtRest(beforeHash.slice(queryAt + 1))}`;
  const fragment = hashAt === -1 ? '' : `#${parametersAtRest(clean.slice(hashAt + 1))}`;
  return `${path}${query}${fragment}`;
}

function parametersAtRest(parameters: string): string {
  return parameters
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      const name = pair.slice(0, equals);
      return namesCredential(decodedOrRaw(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

function decodedOrRaw(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `redact` for a text cut short (a line cut at its length limit, or still being written): where
 * the cut went through a secret, only the secret's start is left, which `redact` cannot
 * recognize. So a cut text that ends in the start of a secret loses that end as well.
 */
export function redactCut(text: string, secrets: readonly string[]): string {
  const clean = redact(text, secrets);
  let cutAt = clean.length;
  for (const secret of secrets) {
    // The longest end of the text that begins the secret: try each place its first character occurs.
    for (let at = clean.indexOf(secret[0]!, Math.max(clean.length - secret.length + 1, 0)); at !== -1 && at < cutAt; at = clean.indexOf(secret[0]!, at + 1)) {
      if (secret.startsWith(clean.slice(at))) {
        cutAt = at;
        break;
      }
    }
  }
  return cutAt === clean.length ? clean : `${clean.slice(0, cutAt)}${REDACTED}`;
}

/**
 * The fields that say what went wrong, from a fixed vocabulary (an errno or SDK code, an HTTP
 * status, an exit code and signal, an OAuth login's reason): kept as they are, since the hints
 * read them (a signal from outside, a login to run). A value may equal a secret by chance (an
 * env `STOP_SIGNAL=SIGTERM`) and still tell nothing of it.
 */
const DIAGNOSTIC_FIELDS = ['code', 'status', 'exitCode', 'signal', 'reason'] as const;
/** The fields that name things (src/errors/): free text, so redacted like the message. */
const NAMING_FIELDS = ['server', 'field', 'scope'] as const;

/**
 * How deep redaction walks a server's data (an error's `data` can nest without end): deeper parts
 * are replaced by `DATA_TOO_DEEP`, so no secret hides below the walk. Far past what the client
 * keeps elsewhere (a listed tool nests at most 64 levels under a manifest's three, a call's result
 * 256), so a persisted manifest or an index keeps every schema whole; the walk keeps its own
 * stack, so this depth costs no call stack.
 */
export const MAX_DATA_DEPTH = 1_000;
export const DATA_TOO_DEEP = `[nested deeper than ${MAX_DATA_DEPTH} levels]`;

/** An array or object being redacted: its entries, and the clean ones so far. */
interface DataWalk {
  source: object;
  depth: number;
  entries: Array<[string, unknown]>;
  cleaned: Array<[string, unknown]>;
  changed: boolean;
}

/** Stands for a container whose walk has just begun, its clean copy not known yet. */
const WALKING = Symbol('walking');

/** `root` with every secret redacted in its strings and keys; the same value, and the same parts, where nothing changed. */
function redactData(root: unknown, secrets: readonly string[]): unknown {
  const walks: DataWalk[] = [];
  const visit = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return redact(value, secrets);
    if (value === null || typeof value !== 'object') return value;
    if (depth > MAX_DATA_DEPTH) return DATA_TOO_DEEP;
    const entries = Array.isArray(value) ? value.map((item, index): [string, unknown] => [String(index), item]) : Object.entries(value);
    walks.push({ source: value, depth, entries, cleaned: [], changed: false });
    return WALKING;
  };
  let clean = visit(root, 1);
  for (let walk = walks.at(-1); walk; walk = walks.at(-1)) {
    if (clean !== WALKING) {
      // `clean` is the clean copy of the walk's next entry.
      const [key, item] = walk.entries[walk.cleaned.length]!;
      const cleanKey = Array.isArray(walk.source) ? key : redact(key, secrets);
      walk.changed ||= cleanKey !== key || clean !== item;
      walk.cleaned.push([cleanKey, clean]);
    }
    if (walk.cleaned.length < walk.entries.length) {
      clean = visit(walk.entries[walk.cleaned.length]![1], walk.depth + 1);
      continue;
    }
    walks.pop();
    if (!walk.changed) clean = walk.source;
    else clean = Array.isArray(walk.source) ? walk.cleaned.map(([, item]) => item) : Object.fromEntries(walk.cleaned);
    if (walks.length === 0) return clean;
  }
  return clean;
}

/**
 * The same error, or a copy with a redacted message and `data` (name and diagnostic fields kept)
 * when either held a secret: the hints read `data` too (a task's time limit).
 */
export function redactError<T>(error: T, secrets: readonly string[]): T | Error {
  if (!(error instanceof Error) || secrets.length === 0) return error;
  const message = redact(error.message, secrets);
  const fields = error as unknown as Record<string, unknown>;
  const data = 'data' in error ? redactData(fields.data, secrets) : undefined;
  if (message === error.message && data === fields.data) return error;
  const copy = new Error(message);
  copy.name = error.name;
  if ('data' in error) Object.assign(copy, { data });
  for (const key of DIAGNOSTIC_FIELDS) {
    if (key in error) Object.assign(copy, { [key]: fields[key] });
  }
  for (const key of NAMING_FIELDS) {
    const value = fields[key];
    if (typeof value === 'string') Object.assign(copy, { [key]: redact(value, secrets) });
  }
  return copy;
}

/** `value` with every secret redacted in its strings and keys (the same shape): what of a server's own data is kept where the secrets must not be. */
export function redactStrings<T>(value: T, secrets: readonly string[]): T {
  return secrets.length === 0 ? value : (redactData(value, secrets) as T);
}

/** A manifest as it is kept on disk: every value of the entry redacted in its strings, and each listed resource's URI by `uriAtRest`. */
export function manifestAtRest(manifest: McpServerManifest, secrets: readonly string[]): McpServerManifest {
  const kept = redactStrings(manifest, secrets);
  const resources = kept.resources.map((resource) => {
    const uri = uriAtRest(resource.uri, secrets);
    return uri === resource.uri ? resource : { ...resource, uri };
  });
  return resources.every((resource, index) => resource === kept.resources[index]) ? kept : { ...kept, resources };
}

/**
 * A server's tool error (`isError: true`) with every secret redacted in its strings and keys
 * (content, structured content): what went wrong may quote the server's own credentials (a
 * refused key). A successful result is the server's answer to the request, left as sent.
 */
export function redactToolError<T extends { isError?: boolean }>(result: T, secrets: readonly string[]): T {
  if (result.isError !== true || secrets.length === 0) return result;
  // The same shape: only strings are replaced.
  return redactStrings(result, secrets);
}

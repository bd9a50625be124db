/**
 * Secrets written literally in a server entry, where no `${VAR}` or field name marks them: the
 * rule for what of `url` and `args` is never shown (src/redact.ts adds these to `secretsOf`, so
 * the logs, the lifecycle view, errors and the inspector all apply it).
 *
 * - A URL (the `url`, or any argument that is one): its query string, a fragment of parameters
 *   (`#access_token=…`) and its `user:password`, each as a whole, and every query or fragment
 *   value and the password on their own.
 * - The argument after a flag that names a secret (`--token`, `--api-key`, `--password`,
 *   `--client-secret`, `--auth`, `--key`, `--pass`, …), and the value of `--flag=value` for such a
 *   flag. Single-letter flags name nothing: `-p` is a port as often as a password, `-k` is curl's
 *   "insecure".
 * - The value of an environment-style assignment `NAME=value` (as `env` and `docker run -e` take):
 *   env values are secrets wherever they are written.
 * - The value of a header given as an argument (`--header "Authorization: Bearer <token>"`, `-H`),
 *   and the credential part of it.
 */
import type { McpServerConfig } from '../machines/types.js';

/**
 * A credential found, and whether it is a whole made of parts found as well: a URL's query (its
 * values are found too), its `user:password` (the password), a header value after its scheme
 * (the credential). A whole is found because a text may show it as it is; where a file writes a
 * `${VAR}` in it, its parts say what is secret (src/written-credentials.ts).
 */
export interface FoundSecret {
  value: string;
  whole: boolean;
}

const part = (value: string): FoundSecret => ({ value, whole: false });
const whole = (value: string): FoundSecret => ({ value, whole: true });

/** Flag names (without their dashes) whose value is a credential. */
const SECRET_FLAG = /token|secret|passw|pwd|api[-_]?key|access[-_]?key|private[-_]?key|auth|credential|bearer|cookie|session/i;
/**
 * Flag names whose last word is `key`, `pass` or `passphrase` (`--key`, `--license-key`,
 * `--licenseKey`, `--db-pass`): too short to hunt for inside a name, where they would take
 * `--key-file`'s path or `--bypass`'s value as well.
 */
const SECRET_LAST_WORD = /(?:^|[-_.])(?:key|pass(?:phrase)?)$/i;
const SECRET_LAST_CAMEL_WORD = /[a-z\d](?:Key|Pass(?:phrase)?)$/;

function namesSecret(flagName: string): boolean {
  return SECRET_FLAG.test(flagName) || SECRET_LAST_WORD.test(flagName) || SECRET_LAST_CAMEL_WORD.test(flagName);
}
const HEADER_FLAG = /^(-H|--header)$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=(.+)$/s;
const FLAG_WITH_VALUE = /^--?([^=\s]+)=(.+)$/s;
/** What follows a secret flag and is another flag, not its value. */
const LONE_FLAG = /^--?[A-Za-z][\w-]*$/;
const HEADER_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:\s*(.+)$/s;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/**
 * What `new URL` would take as an absolute URL starts with a scheme, after the spaces and controls
 * it trims and with the tabs and newlines it drops. Testing this first spares the thrown error for
 * every argument that is a path or a flag (30,000 of them at 10,000 configured servers).
 */
const MAY_BE_URL = /^[\x00-\x20]*[a-z][a-z0-9+.-]*:/i;

/** The parts of a URL that are credentials, as written and as a parsed URL prints them; none when it is not a URL. */
function urlSecrets(text: string): FoundSecret[] {
  if (!MAY_BE_URL.test(text.replace(/[\t\n\r]/g, ''))) return [];
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const found: FoundSecret[] = [];
  const question = text.indexOf('?');
  found.push(...parameterSecrets(question === -1 ? undefined : text.slice(question + 1).split('#')[0]!, url.search.slice(1)));
  // A fragment of parameters carries tokens as a query does (`#access_token=…`, OAuth's implicit grant); `#section` names a place.
  const hash = text.indexOf('#');
  if (url.hash.includes('=')) found.push(...parameterSecrets(text.slice(hash + 1), url.hash.slice(1)));
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^@/?#]*)@/i.exec(text)?.[1];
  if (userinfo) found.push(whole(userinfo), whole(decoded(userinfo)));
  if (url.username || url.password) found.push(whole(`${url.username}:${url.password}`), part(url.password), part(decoded(url.password)));
  return found;
}

/** A query or a fragment of parameters: whole as written and as parsed, and each value. */
function parameterSecrets(written: string | undefined, parsed: string): FoundSecret[] {
  const found: FoundSecret[] = [];
  if (written !== undefined) found.push(whole(written));
  if (parsed.length > 0) found.push(whole(parsed));
  for (const [, value] of new URLSearchParams(parsed)) found.push(part(value));
  for (const raw of parsed.split('&')) {
    const equals = raw.indexOf('=');
    if (equals !== -1) found.push(part(raw.slice(equals + 1)));
  }
  return found;
}

/** The credential of a header value with a scheme (`Bearer <token>`), which a text may show without the scheme. */
export function headerCredential(value: string): string | undefined {
  return /^\S+\s+(\S+)$/.exec(value)?.[1];
}

function headerSecrets(header: string): FoundSecret[] {
  const value = HEADER_LINE.exec(header)?.[1]?.trim();
  if (!value) return [];
  const credential = headerCredential(value);
  return credential ? [whole(value), part(credential)] : [part(value)];
}

function argumentSecrets(args: readonly unknown[]): FoundSecret[] {
  const found: FoundSecret[] = [];
  args.forEach((arg, at) => {
    if (typeof arg !== 'string') return;
    found.push(...urlSecrets(arg));
    const next = args[at + 1];
    if (typeof next === 'string' && !LONE_FLAG.test(next) && arg.startsWith('-') && !arg.includes('=')) {
      if (HEADER_FLAG.test(arg)) found.push(...headerSecrets(next));
      else if (namesSecret(arg.replace(/^-+/, ''))) found.push(part(next));
    }
    const flag = FLAG_WITH_VALUE.exec(arg);
    if (flag) {
      if (HEADER_FLAG.test(`--${flag[1]}`)) found.push(...headerSecrets(flag[2]!));
      else if (namesSecret(flag[1]!)) found.push(part(flag[2]!));
      return;
    }
    const assignment = ASSIGNMENT.exec(arg)?.[1];
    if (assignment) found.push(part(assignment));
  });
  return found;
}

/** The literal secrets of `url` and `args` (see the top of this file), each with whether it is a whole; short ones are left to the length floor of whoever hides them. */
export function literalSecretsFound(config: { url?: string; args?: string[] }): FoundSecret[] {
  const found = typeof config.url === 'string' ? urlSecrets(config.url) : [];
  if (Array.isArray(config.args)) found.push(...argumentSecrets(config.args));
  return found;
}

/** The values of `literalSecretsFound`. */
export function literalSecretsOf(config: McpServerConfig): string[] {
  return literalSecretsFound(config).map((secret) => secret.value);
}

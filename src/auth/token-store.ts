/**
 * One JSON file per server holding what an OAuth login leaves behind: tokens, the registered
 * client, the discovery results. The file is created with mode 0600 inside a 0700 folder (one
 * found open to others is closed when read) and
 * replaced atomically (write a temporary file, rename), so a reader in another process — the
 * CLI's `login` while `serve` runs — sees the old file or the new one, never half of one.
 */
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import { OAuthClientInformationFullSchema, OAuthClientInformationSchema, OAuthTokensSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';
import { homeFolder } from '../config/home-folder.js';
import { readRegularFileSync } from '../config/read-config-file.js';
import { removeLeftStagedCopies, stagedCopyPath } from '../config/staged-copies.js';

/** A login is a few kilobytes; a bigger file is no login. */
const MAX_LOGIN_FILE_BYTES = 1024 * 1024;

/** What one authorization server (issuer) gave: they are only ever presented to it. */
export interface IssuerCredentials {
  tokens?: OAuthTokens;
  /** When the access token expires (ms since the epoch), from its `expires_in` at saving: the token carries no date. */
  tokensExpireAt?: number;
  /** From dynamic registration or a client ID metadata document; a pre-registered client lives in the config. */
  clientInformation?: OAuthClientInformationMixed;
  /** What the last authorization asked for: the granted scope when the token response names none. */
  requestedScope?: string;
}

export interface StoredLogin extends IssuerCredentials {
  /** The MCP server URL the tokens were obtained for: they are never sent to another one. */
  serverUrl?: string;
  /** The authorization server the top-level credentials belong to: the one the server named last. */
  issuer?: string;
  /** Credentials of authorization servers the server named before, by issuer (at most 8, the latest kept). */
  otherIssuers?: Record<string, IssuerCredentials>;
  discoveryState?: OAuthDiscoveryState;
  /** A wider scope the server asked for (403 insufficient_scope); the next login asks for it. */
  requiredScope?: string;
  /**
   * When (ms since the epoch) the authorization server refused to renew the login and its tokens
   * were dropped: without it, the next process found no tokens and said none was ever stored.
   */
  refreshRefusedAt?: number;
}

/** Past this many, the credentials of the issuer left longest ago are forgotten. */
export const MAX_OTHER_ISSUERS = 8;

/**
 * `~/.ai-zen/mcp-oauth`, read when called so a changed HOME (tests) is honoured. Throws when HOME
 * is empty or relative (see home-folder.ts): pass the folder to `OAuthTokenStore` then.
 *
 * @example
 * ```ts
 * import { defaultOAuthDir } from 'mcp-statechart/oauth';
 *
 * console.log(`tokens are kept under ${defaultOAuthDir()}`);
 * ```
 */
export function defaultOAuthDir(): string {
  return join(homeFolder(), '.ai-zen', 'mcp-oauth');
}

/** Past this, a file name gets short: most file systems allow 255 bytes. */
const MAX_READABLE_NAME = 120;

/** Windows opens `nul.json`, `con.json`, `com1.x.json` as the device (whatever follows a dot): a login written there is lost. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/;

/** `byte` as the file name writes it: `%HH`. */
const percentEncoded = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * A file name that is the server name, made safe: anything but letters, digits, `.`, `_` and `-`
 * is percent-encoded, so `../x` or `a/b` cannot leave the folder and two names never share a file.
 * Two more cases get a hash of the exact name appended (after `~`, which the encoding never
 * produces): a name with capitals, since `Docs` and `docs` are one file on a case-insensitive file
 * system (macOS, Windows); and a long name, which would not fit a file name (ENAMETOOLONG). A name
 * Windows keeps for a device (`nul`, `con.x`) has its first letter encoded too.
 */
export function loginFileName(server: string): string {
  const encoded = [...Buffer.from(server, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[a-z0-9_-]/.test(char) || (char === '.' && server !== '.' && server !== '..')
        ? char
        : /[A-Z]/.test(char)
          ? char.toLowerCase()
          : percentEncoded(byte);
    })
    .join('');
  const safe = WINDOWS_DEVICE.test(encoded) ? `${percentEncoded(encoded.charCodeAt(0))}${encoded.slice(1)}` : encoded;
  if (safe.length <= MAX_READABLE_NAME && !/[A-Z]/.test(server)) return `${safe}.json`;
  const hash = createHash('sha256').update(server, 'utf8').digest('hex').slice(0, 32);
  return `${safe.slice(0, MAX_READABLE_NAME)}~${hash}.json`;
}

// The SDK's own schemas for its values; the rest is ours. An unreadable part is dropped, not fatal.
const credentialsSchema = z.looseObject({
  tokens: z.unknown().optional(),
  clientInformation: z.unknown().optional(),
  tokensExpireAt: z.number().optional().catch(undefined),
  requestedScope: z.string().optional().catch(undefined),
});
const fileSchema = credentialsSchema.extend({
  serverUrl: z.string().optional(),
  issuer: z.string().optional().catch(undefined),
  otherIssuers: z.record(z.string(), credentialsSchema.catch({})).optional().catch(undefined),
  discoveryState: z.looseObject({ authorizationServerUrl: z.string(), authorizationServerMetadata: z.looseObject({ issuer: z.string() }).optional().catch(undefined) }).optional().catch(undefined),
  requiredScope: z.string().optional().catch(undefined),
  refreshRefusedAt: z.number().optional().catch(undefined),
});

/**
 * @example
 * ```ts
 * import { OAuthTokenStore } from 'mcp-statechart/oauth';
 *
 * const store = new OAuthTokenStore('linear');
 * console.log(await store.read());
 * ```
 */
export class OAuthTokenStore {
  readonly file: string;

  constructor(
    readonly server: string,
    readonly dir: string = defaultOAuthDir(),
  ) {
    this.file = join(dir, loginFileName(server));
  }

  /** What is stored; `{}` when nothing is, or when the file is not a login (a broken file counts as logged out: `unreadable` tells it apart). */
  read(): StoredLogin {
    const login = this.parse();
    return login === 'unreadable' ? {} : login;
  }

  /**
   * Whether a file is there that is no login: cut short or edited by hand (writes are atomic, so
   * no kill during a save leaves one), not JSON, too big, not a regular file. Told apart from no
   * file at all, so the user hears that the file is broken, not that no login was ever made.
   */
  unreadable(): boolean {
    return this.parse() === 'unreadable';
  }

  private parse(): StoredLogin | 'unreadable' {
    const read = readRegularFileSync(this.file, MAX_LOGIN_FILE_BYTES);
    // Whatever it holds: a half-written, hand-edited or oversized file may still hold tokens.
    if (read.kind === 'bytes' || (read.kind === 'unreadable' && read.bytes !== undefined)) this.closeToOthers();
    if (read.kind === 'missing') return {};
    if (read.kind !== 'bytes') return 'unreadable';
    const text = read.bytes.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return 'unreadable';
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) return 'unreadable';
    const { serverUrl, issuer, otherIssuers, discoveryState, requiredScope, refreshRefusedAt } = parsed.data;
    const current = readCredentials(parsed.data);
    const login: StoredLogin = { serverUrl, ...current, requiredScope, refreshRefusedAt };
    if (discoveryState) login.discoveryState = discoveryState as unknown as OAuthDiscoveryState;
    // A file from before issuers were kept apart: its credentials belong to the issuer it discovered.
    login.issuer =
      issuer ?? stampOf(current.tokens) ?? stampOf(current.clientInformation) ?? discoveryState?.authorizationServerMetadata?.issuer ?? discoveryState?.authorizationServerUrl;
    if (otherIssuers) login.otherIssuers = Object.fromEntries(Object.entries(otherIssuers).map(([key, value]) => [key, readCredentials(value)]));
    return dropUndefined(login);
  }

  /** Replaces the stored login. */
  write(login: StoredLogin): void {
    this.createFolder();
    removeLeftStagedCopies(this.file);
    const temporary = stagedCopyPath(this.file);
    try {
      // `wx`: never write through a file (or link) someone else put there; the mode applies on creation.
      writeFileSync(temporary, `${JSON.stringify(dropUndefined(login), null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(temporary, this.file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  /** Creates the folder of the logins, open to this user alone. */
  createFolder(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // The mode above applies only to a folder created now; one made earlier (or by hand) may be open to others.
    chmodSync(this.dir, 0o700);
  }

  /**
   * A login file open to others (copied from another machine, restored from a backup) is closed
   * (0600), as `write` closes the folder, whether or not it parses: its tokens are this user's alone. A file another user
   * owns cannot be changed, and is read as it is. A link at the login's place is never followed:
   * what it names may be any file, no login of ours.
   */
  private closeToOthers(): void {
    // Windows has no such modes: every file there reads as 0666.
    if (process.platform === 'win32') return;
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      // Gone meanwhile (replaced by another process's write, which is 0600), or a link.
      return;
    }
    try {
      const stats = fstatSync(fd);
      if (stats.isFile() && stats.mode & 0o077) fchmodSync(fd, 0o600);
    } catch {
      // Not ours to change.
    } finally {
      closeSync(fd);
    }
  }

  /** Removes the stored login; true when there was one. */
  delete(): boolean {
    try {
      rmSync(this.file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }
}

function readCredentials(raw: z.infer<typeof credentialsSchema>): IssuerCredentials {
  const credentials: IssuerCredentials = { requestedScope: raw.requestedScope };
  const parsedTokens = OAuthTokensSchema.safeParse(raw.tokens);
  if (parsedTokens.success) {
    credentials.tokens = parsedTokens.data;
    credentials.tokensExpireAt = raw.tokensExpireAt;
  }
  // A registered client has its metadata (redirect URIs…); a client ID metadata document client has only an ID.
  const fullClient = OAuthClientInformationFullSchema.safeParse(raw.clientInformation);
  const bareClient = OAuthClientInformationSchema.safeParse(raw.clientInformation);
  if (fullClient.success) credentials.clientInformation = fullClient.data;
  else if (bareClient.success) credentials.clientInformation = bareClient.data;
  return dropUndefined(credentials);
}

/** The issuer the SDK stamped on a value it stored (SEP-2352). */
function stampOf(value: object | undefined): string | undefined {
  const stamp = value && 'issuer' in value ? value.issuer : undefined;
  return typeof stamp === 'string' ? stamp : undefined;
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

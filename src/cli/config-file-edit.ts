/**
 * Changes one server entry of an mcp.json the CLI writes (`add`, `remove`, `import`, `install`).
 * The file's other content and its key order stay as they are; the new text goes to a temporary
 * file created with O_EXCL and is renamed over the old one under a lock beside it, so two
 * commands writing at once both land and a reader sees the old file or the new one.
 */
import { CliError } from './json-codes.js';
import { mkdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { FileLockHeld, withFileLock } from '../config/file-lock.js';
import { removeLeftStagedCopies, stagedCopyPath } from '../config/staged-copies.js';
import { writeRefusal } from './write-refusal.js';
import { defaultUserConfigPath, findProjectConfig, PROJECT_CONFIG_NAME } from '../config/locate-config-files.js';
import { isJsonObject } from '../config/null-proto.js';
import { parseConfigJson, parseJson, type JsonParseResult } from '../config/parse-json.js';
import { findDuplicateKeys, type DuplicateKey } from '../config/duplicate-keys.js';
import { foreignProjectLocation, ignoredBecause, MAX_CONFIG_FILE_BYTES, megabytes, readConfigFile, type ForeignLocation } from '../config/read-config-file.js';

export type WritableScope = 'user' | 'project';

/** A failure a person can act on: `code` is stable for `--json`, the message says what to do. */
type JsonObject = Record<string, unknown>;

/** `~/.ai-zen/mcp.json`, or the project's `.mcp.json`: the nearest one, else one in the working folder (or `--project`). */
export async function configPathForScope(scope: WritableScope, projectDir: string | undefined): Promise<string> {
  if (scope === 'user') return defaultUserConfigPath();
  if (projectDir !== undefined) return join(resolve(projectDir), PROJECT_CONFIG_NAME);
  const nearest = await findProjectConfig(process.cwd());
  return nearest.found ? nearest.path : join(process.cwd(), PROJECT_CONFIG_NAME);
}

/** The file as an object; a missing file is an empty one. Anything else that is not a JSON object is refused, never overwritten. */
export async function readConfigObject(path: string): Promise<JsonObject> {
  return ownConfigObject(path, await readConfigText(path, MAX_CONFIG_FILE_BYTES));
}

/** A file of ours is plain JSON, as it is rewritten. */
function ownConfigObject(path: string, text: string): JsonObject {
  return text.trim() === '' ? {} : configObjectOf(path, parseJson(text));
}

/** Another client's file, read to import from, and the keys written twice in it: the client, like `JSON.parse`, uses the last one. */
export interface ClientConfig {
  config: JsonObject;
  duplicates: DuplicateKey[];
  /** The text the duplicates' offsets are in. */
  json: string;
}

/** Another client's file: it is read and never rewritten, so it may be VS Code's JSONC (a rewrite would drop its comments). */
export async function readClientConfig(path: string): Promise<ClientConfig> {
  const text = await readConfigText(path, MAX_CLIENT_FILE_BYTES);
  if (text.trim() === '') return { config: {}, duplicates: [], json: text };
  const parsed = parseConfigJson(text);
  return { config: configObjectOf(path, parsed), duplicates: findDuplicateKeys(parsed.json), json: parsed.json };
}

/**
 * The largest file of another client's read to import from: Claude Code keeps its history in
 * ~/.claude.json beside its servers, and that file grows past the 16 MB a config file of ours may take.
 */
const MAX_CLIENT_FILE_BYTES = 256 * 1024 * 1024;

/** The file's text, read as the loader reads it (a regular file, within `maxBytes`); a missing file is empty. */
async function readConfigText(path: string, maxBytes: number): Promise<string> {
  const read = await readConfigFile(path, { maxBytes });
  if (read.kind === 'unreadable') throw new CliError('CONFIG_UNREADABLE', `Could not read ${path}: it ${read.reason}. Nothing was changed.`);
  return read.kind === 'text' ? read.text : '';
}

function configObjectOf(path: string, parsed: JsonParseResult): JsonObject {
  if (!parsed.ok) {
    throw new CliError(
      'CONFIG_INVALID',
      `${path} is not valid JSON (line ${parsed.line}, column ${parsed.column}: ${parsed.reason}). Fix it by hand first; nothing was changed.`,
    );
  }
  if (!isJsonObject(parsed.value)) throw new CliError('CONFIG_INVALID', `${path} does not hold a JSON object. Fix it by hand first; nothing was changed.`);
  const servers = Object.hasOwn(parsed.value, 'mcpServers') ? parsed.value.mcpServers : undefined;
  if (servers !== undefined && !isJsonObject(servers)) {
    throw new CliError('CONFIG_INVALID', `"mcpServers" in ${path} is not an object keyed by server name. Fix it by hand first; nothing was changed.`);
  }
  return parsed.value;
}

/** The `mcpServers` entries of a file read with readConfigObject. */
export function serverEntries(config: JsonObject): JsonObject {
  const servers = Object.hasOwn(config, 'mcpServers') ? config.mcpServers : undefined;
  return isJsonObject(servers) ? servers : {};
}

/** The indentation the file uses (two spaces when it has none), so a rewrite does not reformat it. */
function indentationOf(text: string): string | number {
  const match = /^[{[]\s*\n([ \t]+)\S/.exec(text);
  return match ? match[1]! : 2;
}

/**
 * Refuses a project file that discovery ignores (another user's, or one others may write, or in a
 * folder that is), before anything is written or asked: an entry written there would never load,
 * and a rewritten file of another user's would become ours, its other entries no longer ignored.
 */
export async function refuseIgnoredProjectFile(path: string, scope: WritableScope): Promise<void> {
  if (scope !== 'project') return;
  const foreign = await foreignProjectLocation(path);
  if (foreign === undefined) return;
  throw new CliError(
    'CONFIG_UNREADABLE',
    `${path} ${ignoredBecause(foreign)} (servers in it never load), so nothing was changed.`,
    `${IGNORED_FILE_REMEDY[foreign](path)}, then run the command again; or put the server in your user file with --scope user.`,
  );
}

const IGNORED_FILE_REMEDY: Record<ForeignLocation, (file: string) => string> = {
  'folder of another user': () => 'Work in a copy of the project in a folder of your own',
  'folder writable by others': (file) => `If ${dirname(file)} is yours, take the others' write access away (chmod o-w ${dirname(file)}); else work in a copy of the project in a folder only you can write`,
  'file of another user': (file) => `Once you have read ${file} and trust every server in it, put a copy of your own in its place`,
  'file writable by others': (file) => `Once you have read ${file} and trust every server in it, take the others' write access away (chmod o-w ${file})`,
};

/**
 * Under the file's lock: reads it again, lets `edit` change the `mcpServers` object, and writes it
 * back when `edit` returns true. Returns what `edit` returned. A project file discovery ignores is
 * refused first (refuseIgnoredProjectFile).
 */
export async function editServerEntries(path: string, scope: WritableScope, edit: (servers: JsonObject) => boolean): Promise<boolean> {
  await refuseIgnoredProjectFile(path, scope);
  // A link (to a dotfiles checkout) is written through: a rename over it would put a copy in its
  // place, and the file it points to, the one other tools and machines read, would not change.
  const file = await realpath(path).catch(() => path);
  const edited = async () => {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    return withFileLock(`${file}.lock`, () => rewriteServerEntries(file, edit));
  };
  return edited().catch((error: unknown) => {
    // The file is replaced by a rename, and the lock and the staged copy are removed on failure: a refused write changed nothing.
    const refusal = writeRefusal(error);
    if (refusal) throw new CliError('WRITE_FAILED', `could not write ${path}: ${refusal.reason}. Nothing was changed.`, `${refusal.remedy}, then run the command again.`);
    if (!(error instanceof FileLockHeld)) throw error;
    if (error.empty) {
      throw new CliError(
        'CONFIG_LOCKED',
        `${path} is locked by ${error.lockPath}, an empty lock that names no process (left by one that failed, for example on a full disk, or was killed while taking it): nothing was changed. Remove ${error.lockPath} and try again.`,
      );
    }
    const holder = error.holderPid === undefined ? 'another process' : `another process (pid ${error.holderPid})`;
    throw new CliError(
      'CONFIG_LOCKED',
      `${path} is being changed by ${holder}: nothing was changed. Try again once it has finished; if no such process runs, remove ${error.lockPath}.`,
    );
  });
}

/** The file's new text. A value nested deeper than JSON.stringify's stack reaches (it parses fine) cannot be written back. */
function rewrittenText(path: string, config: JsonObject, indentation: string | number): string {
  try {
    return `${JSON.stringify(config, null, indentation)}\n`;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new CliError(
      'CONFIG_INVALID',
      `${path} holds a value nested too deeply (thousands of levels) to be written back. Nothing was changed.`,
      'Make that value flatter or remove it by hand, then run the command again.',
    );
  }
}

async function rewriteServerEntries(path: string, edit: (servers: JsonObject) => boolean): Promise<boolean> {
  removeLeftStagedCopies(path);
  const text = await readConfigText(path, MAX_CONFIG_FILE_BYTES);
  const config = ownConfigObject(path, text);
  const servers = serverEntries(config);
  if (!edit(servers)) return false;
  config.mcpServers = servers;
  const mode = ((await stat(path).catch(() => undefined))?.mode ?? 0o600) & 0o777;
  const written = rewrittenText(path, config, indentationOf(text));
  // Discovery refuses a larger file whole: writing it would lose every server in it, not just this one.
  const bytes = Buffer.byteLength(written);
  if (bytes > MAX_CONFIG_FILE_BYTES) {
    throw new CliError(
      'INVALID_ENTRY',
      `the change would make ${path} ${megabytes(bytes)} MB, over the ${megabytes(MAX_CONFIG_FILE_BYTES)} MB that is read of a config file, and none of its servers would load (an indented, deeply nested value grows fast). Nothing was changed.`,
    );
  }
  const temporary = stagedCopyPath(path);
  try {
    await writeFile(temporary, written, { mode, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return true;
}

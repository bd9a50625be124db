/**
 * `import --from claude-desktop|claude-code|vscode|cursor|<file>`: copies the servers another
 * client is configured with into this one's user (or project) file. Shows every definition
 * first (values of env and headers never shown) and asks; `--yes` for scripts. A name already
 * defined in the target is left alone unless `--force`.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { DiscoveredServer } from '../../config/index.js';
import { homeFolder } from '../../config/home-folder.js';
import { findNearest, findProjectConfig } from '../../config/locate-config-files.js';
import { isJsonObject } from '../../config/null-proto.js';
import { fieldNestedTooDeep, parseServerEntry } from '../../config/parse-server-entry.js';
import { approveServers } from '../../config/project-trust.js';
import { runningServeHoldsText } from '../serve-holds-new.js';
import { withVariableReferences, workspaceFolderOf } from '../../config/vscode-servers.js';
import { parseTransport } from '../../../machines/options.js';
import { MAX_ARGUMENT_DEPTH } from '../../../machines/errors.js';
import { quoted } from '../../../machines/control-characters.js';
import type { McpServerEntry } from '../../../machines/types.js';
import { describeServerDefinition } from '../approval-prompt.js';
import { terminalLine } from '../terminal-text.js';
import { reportDone, reported } from '../command-report.js';
import { configPathForScope, editServerEntries, readClientConfig, readConfigObject, refuseIgnoredProjectFile, serverEntries, type ClientConfig, type WritableScope } from '../config-file-edit.js';
import type { DuplicateKey } from '../../config/duplicate-keys.js';
import { lineAndColumn } from '../../config/parse-json.js';
import { CliError } from '../json-codes.js';
import { confirmChange } from '../confirm-change.js';
import { approvalRefused, checkServerName, projectDefinition } from './add.js';
import { translatedEntry } from '../client-fields.js';
import { sharedCredentialsNotice } from '../shared-credentials.js';

export const CLIENTS = ['claude-desktop', 'claude-code', 'vscode', 'cursor'] as const;

export interface ImportOptions {
  from: string;
  scope: WritableScope;
  project?: string;
  yes?: boolean;
  force?: boolean;
  json?: boolean;
  /** `old=new`: a server imported under another name (another client's names may have spaces or slashes). */
  rename?: string[];
}

/** One file another client reads, and where in it the servers are. */
interface ClientFile {
  path: string;
  /** How a person tells the servers at `serversAt` from another part of the same file. */
  part?: (serversAt: readonly string[]) => string;
  /** The keys leading to the object holding the servers: `mcpServers` or VS Code's `servers`, maybe under `projects[<folder>]`. */
  serversAt: (config: Record<string, unknown>) => string[];
}

/** The per-platform folder applications keep settings in. */
function appSettingsFolder(): string {
  if (process.platform === 'darwin') return join(homeFolder(), 'Library', 'Application Support');
  if (process.platform === 'win32') return absoluteFolderFromEnv('APPDATA') ?? join(homeFolder(), 'AppData', 'Roaming');
  return absoluteFolderFromEnv('XDG_CONFIG_HOME') ?? join(homeFolder(), '.config');
}

/** As the XDG spec says: an empty value is unset, and a relative one is invalid (it would be read from wherever the command runs). */
function absoluteFolderFromEnv(name: string): string | undefined {
  const value = process.env[name];
  return value !== undefined && isAbsolute(value) ? value : undefined;
}

const mcpServersKey = () => ['mcpServers'];
const vscodeServersKey = () => ['servers'];

/** What is at `path` in `config`, through objects only. */
function valueAt(config: unknown, path: readonly string[]): unknown {
  let value = config;
  for (const key of path) value = isJsonObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
  return value;
}

/**
 * The folders from the working one up to the project's: the one holding its `.mcp.json`, else the
 * git root (or home), as the loader looks. Claude Code run from a subfolder reads the same files.
 */
async function projectFolders(cwd: string): Promise<[string, ...string[]]> {
  const root = dirname((await findProjectConfig(cwd)).path);
  const folders: [string, ...string[]] = [cwd];
  for (let folder = cwd; folder !== root && dirname(folder) !== folder; ) folders.push((folder = dirname(folder)));
  return folders;
}

/**
 * Where each client keeps its servers, the least specific first: of a name in two, the client uses
 * the later. `folders`: from the working one up to the project's. A workspace's `.vscode/mcp.json`
 * or `.cursor/mcp.json` is the nearest one walking up, as `.mcp.json` is found.
 */
async function clientFiles(from: string, folders: readonly [string, ...string[]]): Promise<ClientFile[]> {
  const cwd = folders[0];
  const projectRoot = folders.at(-1) ?? cwd;
  switch (from) {
    case 'claude-desktop':
      return [{ path: join(appSettingsFolder(), 'Claude', 'claude_desktop_config.json'), serversAt: mcpServersKey }];
    case 'claude-code':
      return [
        { path: join(homeFolder(), '.claude.json'), serversAt: mcpServersKey },
        { path: join(projectRoot, '.mcp.json'), serversAt: mcpServersKey },
        // Claude Code's local scope: servers of one project, kept in ~/.claude.json under its folder (the
        // nearest of this one and those above it up to the project's); it wins over the project's.
        {
          path: join(homeFolder(), '.claude.json'),
          part: ([, folder]) => `its local scope for ${folder}`,
          serversAt: (config) => ['projects', folders.find((folder) => isJsonObject(valueAt(config, ['projects', folder, 'mcpServers']))) ?? cwd, 'mcpServers'],
        },
      ];
    case 'vscode':
      return [
        { path: join(appSettingsFolder(), 'Code', 'User', 'mcp.json'), serversAt: vscodeServersKey },
        { path: (await findNearest(cwd, join('.vscode', 'mcp.json'))).path, serversAt: vscodeServersKey },
      ];
    case 'cursor': {
      const own = join(homeFolder(), '.cursor', 'mcp.json');
      // Outside a git checkout the walk up ends at the home folder, where it finds Cursor's own file: read once.
      const workspace = (await findNearest(cwd, join('.cursor', 'mcp.json'))).path;
      return [{ path: own, serversAt: mcpServersKey }, ...(workspace === own ? [] : [{ path: workspace, serversAt: mcpServersKey }])];
    }
    default:
      return [{ path: resolve(cwd, from), serversAt: (config) => (config.mcpServers !== undefined && config.mcpServers !== null ? ['mcpServers'] : ['servers']) }];
  }
}

interface Candidate {
  name: string;
  entry: Record<string, unknown>;
  from: string;
  /** The file, and the part of it when it has several. */
  where: string;
}

interface Skipped {
  name: string;
  reason: string;
}

async function candidatesFrom(files: ClientFile[]): Promise<{ candidates: Candidate[]; read: string[]; unusable: Skipped[]; twice: string[] }> {
  const candidates: Candidate[] = [];
  const read: string[] = [];
  const unusable: Skipped[] = [];
  const twice: string[] = [];
  // Claude Code's ~/.claude.json holds two scopes and may take tens of MB: read and scanned once.
  const readOnce = new Map<string, Promise<ClientConfig>>();
  for (const file of files) {
    const reading = readOnce.get(file.path) ?? readClientConfig(file.path);
    readOnce.set(file.path, reading);
    const { config, duplicates, json } = await reading.catch((error: unknown) => {
      if (error instanceof CliError) throw new CliError(error.code, error.message.replace('Fix it by hand first; nothing was changed.', 'Nothing was imported.'));
      throw error;
    });
    const serversAt = file.serversAt(config);
    const servers = valueAt(config, serversAt);
    if (!isJsonObject(servers)) continue;
    if (!read.includes(file.path)) read.push(file.path);
    const where = file.part === undefined ? file.path : `${file.path} (${file.part(serversAt)})`;
    twice.push(...writtenTwice(duplicates, serversAt, json, where));
    for (const [name, entry] of Object.entries(servers)) {
      // Walked below (its variables converted, its text searched): thousands of levels would overflow the stack and end the import.
      const tooDeep = isJsonObject(entry) ? fieldNestedTooDeep(entry) : undefined;
      if (tooDeep !== undefined) unusable.push({ name, reason: `its ${quoted(tooDeep)} in ${where} is nested deeper than ${MAX_ARGUMENT_DEPTH} levels, the most this client reads` });
      else if (isJsonObject(entry)) candidates.push({ name, entry: withVariableReferences(entry, workspaceFolderOf(file.path)) as Record<string, unknown>, from: file.path, where });
      else unusable.push({ name, reason: `its entry in ${where} is ${entry === null ? 'null' : Array.isArray(entry) ? 'a list' : `a ${typeof entry}`}, not an object with a "command" or a "url"` });
    }
  }
  return { candidates, read, unusable, twice };
}

/**
 * A server name, or a field of one, written twice among the servers read: the client uses the last
 * one, as `import` does, while a person reading the file may have read the first.
 */
function writtenTwice(duplicates: readonly DuplicateKey[], serversAt: readonly string[], json: string, where: string): string[] {
  const within = (path: readonly string[]) => path.length >= serversAt.length && serversAt.every((key, at) => path[at] === key);
  return duplicates
    .filter((duplicate) => within(duplicate.path))
    .map(({ path, key, offset }) => {
      const { line } = lineAndColumn(json, offset);
      const [server, ...fields] = path.slice(serversAt.length);
      const what = server === undefined ? `The server ${quoted(key)} is` : `${quoted(server)}: its ${quoted([...fields, key].join('.'))} is`;
      return `${what} written twice in ${where} (the second at line ${line}): the last one is imported, as the client reads it; check it is the one you meant.`;
    });
}

/** `--rename old=new`, by old name; the new name cannot hold "=", the old one may. */
function renamesOf(given: string[] = []): Map<string, string> {
  return new Map(
    given.map((pair) => {
      const at = pair.lastIndexOf('=');
      if (at <= 0) throw new CliError('INVALID_ARGUMENTS', `--rename takes old=new (--rename "My Notes=my-notes"), not ${quoted(pair)}. Nothing was imported.`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** How to import a server whose name is not usable here: under one that is, by --rename, spelled to be pasted when it can be. */
function renameHint(name: string): string {
  const suggestion = name.normalize('NFC').replace(/[^\p{L}\p{N}\p{M}_.-]+/gu, '-').replace(/^[^\p{L}\p{N}]+/u, '').slice(0, 64).replace(/-+$/, '');
  const pastable = terminalLine(name) === name && !/["\\$`]/.test(name) && name.length <= 200 && suggestion !== '';
  return pastable ? `import it under another name with --rename "${name}=${suggestion}"` : 'import it under another name with --rename <old=new>';
}

function asDiscovered(candidate: Candidate, scope: WritableScope): DiscoveredServer {
  const spelled = candidate.entry.type ?? candidate.entry.transport;
  const transport = (typeof spelled === 'string' ? parseTransport(spelled) : undefined) ?? (typeof candidate.entry.url === 'string' ? 'http' : 'stdio');
  return { name: candidate.name, config: candidate.entry as McpServerEntry, written: candidate.entry as McpServerEntry, transport, scope, source: candidate.from, disabled: candidate.entry.disabled === true };
}

export function runImport(options: ImportOptions): Promise<number> {
  return reported(options, async () => {
    const renames = renamesOf(options.rename);
    const folders = await projectFolders(process.cwd());
    const files = await clientFiles(options.from, folders);
    const found = await candidatesFrom(files);
    const { read, unusable, twice } = found;
    const candidates = found.candidates.map((candidate) => {
      const name = renames.get(candidate.name) ?? candidate.name;
      return { ...candidate, ...translatedEntry(name, candidate.entry), name, original: candidate.name };
    });
    const unmatched = [...renames.keys()].filter((old) => !found.candidates.some((candidate) => candidate.name === old));
    if (unmatched.length > 0) {
      throw new CliError('INVALID_ARGUMENTS', `--rename names ${unmatched.map(quoted).join(', ')}, which ${options.from} does not define. Nothing was imported.`);
    }
    if (read.length === 0) {
      const looked = files.map((file) => file.path);
      if (!(CLIENTS as readonly string[]).includes(options.from)) {
        // A file was named: telling the person to name one would send them in a circle.
        const [file] = looked;
        const why = existsSync(file!) ? 'it has no "mcpServers" (or VS Code\'s "servers") object' : 'there is no such file';
        throw new CliError('NOTHING_TO_IMPORT', `No servers found in ${file}: ${why}. --from takes a client (${CLIENTS.join(', ')}) or the path of a file that defines servers.`);
      }
      throw new CliError('NOTHING_TO_IMPORT', `No servers found for ${options.from}: looked in ${[...new Set(looked)].join(', ')}. Name the file instead: --from <file>.`);
    }
    const target = await configPathForScope(options.scope, options.project);
    // Before the preview and its question: a yes to a write that will be refused asks for nothing.
    await refuseIgnoredProjectFile(target, options.scope);
    const existing = serverEntries(await readConfigObject(target));
    const skipped: Skipped[] = [...unusable];
    const chosen = new Map<string, (typeof candidates)[number]>();
    for (const candidate of candidates) {
      try {
        checkServerName(candidate.name);
      } catch (error) {
        // The name check's message is a sentence; here it is one clause of the line, which ends it.
        skipped.push({ name: candidate.name, reason: `the one in ${candidate.where}: ${(error as Error).message.replace(/\.$/, '')}; ${renameHint(candidate.original)}` });
        continue;
      }
      // An entry the loader would skip (a transport not spoken here, a field of the wrong type) would
      // sit in the file unused; one with a ${VAR} is copied, as its variables may be set later.
      const refusal = JSON.stringify(candidate.entry).includes('${')
        ? undefined
        : parseServerEntry(candidate.name, candidate.entry, { file: target, scope: options.scope, env: {} }).problems.find((problem) => problem.severity === 'error');
      if (refusal !== undefined) {
        skipped.push({ name: candidate.name, reason: `the one in ${candidate.where}: it would not start here: ${refusal.message.replace(`server ${quoted(candidate.name)} skipped: `, '')}` });
        continue;
      }
      if (Object.hasOwn(existing, candidate.name) && !options.force) {
        skipped.push({ name: candidate.name, reason: `the one in ${candidate.where}: already defined in ${target} (--force replaces it)` });
        continue;
      }
      // The same name in two of the client's files: the later (more specific) one wins, as in the client.
      const overridden = chosen.get(candidate.name);
      if (overridden !== undefined) {
        skipped.push({ name: candidate.name, reason: `the one in ${overridden.where}: ${options.from} uses the one in ${candidate.where} instead, which is imported` });
      }
      chosen.set(candidate.name, candidate);
    }
    const plan = [...chosen.values()];
    // A skipped name is as the other program's file spells it: quoted() cuts a long one and notes a lookalike.
    const skippedText = skipped.map((skip) => `Skipped ${quoted(skip.name)}: ${skip.reason}.`);
    if (plan.length === 0) {
      return reportDone(options, ['Nothing to import.', ...skippedText].join('\n'), { file: target, added: [], skipped });
    }
    // With --force, the person confirming must see that a definition of theirs goes, not only what comes.
    const replaced = plan.map((candidate) => candidate.name).filter((name) => Object.hasOwn(existing, name));
    const notices = [
      ...replaced.map((name) => `Replaces the ${quoted(name)} already defined in ${target} (--force).`),
      ...plan.flatMap((candidate) => candidate.notes),
      ...twice,
    ];
    if (options.scope === 'project') {
      for (const candidate of plan) {
        const notice = sharedCredentialsNotice(candidate.name, candidate.entry, target);
        if (notice !== undefined) notices.push(notice);
      }
    }
    const shown = [
      `${plan.length === 1 ? 'This server' : `These ${plan.length} servers`} would be added to ${target} (${options.scope} scope):`,
      ...plan.map((candidate) => describeServerDefinition(asDiscovered(candidate, options.scope)) + (candidate.entry.disabled === true ? '\n  disabled:     yes, as in that file: it does not start until "disabled" is removed' : '')),
      ...notices,
      ...skippedText,
    ].join('\n');
    await confirmChange(options, shown, plan.length === 1 ? 'Import it?' : 'Import them?', { base: 'import', done: 'imported' });
    await editServerEntries(target, options.scope, (servers) => {
      for (const candidate of plan) servers[candidate.name] = candidate.entry;
      return true;
    });
    const added = plan.map((candidate) => candidate.name);
    if (options.scope === 'project') {
      const definitions = await Promise.all(plan.map((candidate) => projectDefinition(target, candidate.name)));
      await approveServers({}, definitions.filter((definition) => definition !== undefined)).catch((error: unknown) => {
        throw approvalRefused(`imported ${added.map(quoted).join(', ')} into ${target}`, target, added, error);
      });
    }
    const text = [
      `Imported ${added.length} server${added.length === 1 ? '' : 's'} from ${read.join(', ')} into ${target}: ${added.map(quoted).join(', ')}.`,
      ...notices,
      ...skippedText,
      // Project servers were approved above.
      ...(options.scope === 'user' ? [runningServeHoldsText(added)] : []),
      'See them with `mcp-statechart servers`.',
    ].join('\n');
    return reportDone(options, text, { file: target, added, replaced, skipped });
  });
}

/** One config file → its servers, in file order, and its problems. Never throws. */
import { quoted, terminalLine } from '../../machines/control-characters.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { lineAndColumn, parseConfigJson } from './parse-json.js';
import { parseServerEntry } from './parse-server-entry.js';
import type { VariableSource } from './expand-variables.js';
import type { ConfigFileLocation } from './locate-config-files.js';
import { isJsonObject } from './null-proto.js';
import { readConfigFile } from './read-config-file.js';
import { unexpandableVariables, withVariableReferences, workspaceFolderOf } from './vscode-servers.js';
import { parseToolPermissions } from './tool-permissions.js';
import type { ConfigProblem, DiscoveredServer, ToolPatterns } from './types.js';

export interface LoadedConfigFile {
  servers: DiscoveredServer[];
  problems: ConfigProblem[];
  toolPatterns?: ToolPatterns;
}

const NOTHING_LOADED = 'nothing in this file was loaded';

export async function loadConfigFile(location: ConfigFileLocation, env: VariableSource): Promise<LoadedConfigFile> {
  const file = location.path;
  const fileProblem = (message: string, extra: Partial<ConfigProblem> = {}): LoadedConfigFile => ({
    servers: [],
    problems: [{ severity: 'error', file, message, ...extra }],
  });

  const read = await readConfigFile(file, { requireOwnLocation: location.scope === 'project' });
  if (read.kind === 'missing') return location.required ? fileProblem('file not found') : { servers: [], problems: [] };
  if (read.kind === 'unreadable') return fileProblem(`cannot load: ${read.reason}`);

  const parsed = parseConfigJson(read.text);
  if (!parsed.ok) {
    const { line, column, reason } = parsed;
    return fileProblem(`not valid JSON at line ${line}, column ${column}: ${reason}; ${NOTHING_LOADED}`, { line, column });
  }
  if (!isJsonObject(parsed.value)) return fileProblem(`the file must hold a JSON object; ${NOTHING_LOADED}`);

  // Own properties only: a top-level `__proto__` key must not stand in for `mcpServers`.
  // VS Code's mcp.json keeps its servers under `servers`: read as the same entries, its variables converted.
  const vscode = !Object.hasOwn(parsed.value, 'mcpServers') && Object.hasOwn(parsed.value, 'servers');
  const key = vscode ? 'servers' : 'mcpServers';
  const entries = Object.hasOwn(parsed.value, key) ? parsed.value[key] : undefined;
  if (entries === undefined) return fileProblem(`no "mcpServers" object (nor VS Code's "servers"); ${NOTHING_LOADED}`, { field: 'mcpServers' });
  if (!isJsonObject(entries)) {
    return fileProblem(`"${key}" must be an object keyed by server name; ${NOTHING_LOADED}`, { field: key });
  }

  const permissions = parseToolPermissions(file, location.scope, Object.hasOwn(parsed.value, 'permissions') ? parsed.value.permissions : undefined);
  const result: LoadedConfigFile = {
    servers: [],
    problems: [...duplicateKeyProblems(file, parsed.json, key), ...permissions.problems],
    toolPatterns: permissions.patterns,
  };
  if (!vscode && Object.hasOwn(parsed.value, 'servers') && isJsonObject(parsed.value.servers)) {
    result.problems.push({ severity: 'warning', file, field: 'servers', message: 'VS Code\'s "servers" is not read: this file has "mcpServers", which is used; move the servers into one of them' });
  }
  const context = { file, scope: location.scope, env };
  const workspaceFolder = workspaceFolderOf(file);
  for (const name of Object.keys(entries)) {
    const raw = vscode ? withVariableReferences(entries[name], workspaceFolder) : entries[name];
    const outcome = parseServerEntry(name, raw, context);
    // Not only in VS Code's format: `import` copies such entries into mcpServers files, and Cursor
    // writes `${env:NAME}` there. Only an entry that parsed: one nested thousands deep is not walked.
    if (isJsonObject(raw) && (vscode || outcome.server !== undefined)) result.problems.push(...vscodeLeftovers(file, name, raw));
    if (outcome.server) result.servers.push(outcome.server);
    result.problems.push(...outcome.problems);
  }
  return result;
}

/** What a VS Code entry asks of VS Code that this loader does not do, each said once, as a warning. */
function vscodeLeftovers(file: string, server: string, entry: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = unexpandableVariables(entry).map(({ variable, field }) => ({
    severity: 'warning',
    file,
    server,
    field,
    message: `server ${quoted(server)}: ${terminalLine(variable)} (used in ${quoted(field)}) is a VS Code variable this loader cannot fill in; it is passed as written: write the value, or a \${VAR} from the environment`,
  }));
  if (Object.hasOwn(entry, 'envFile')) {
    problems.push({
      severity: 'warning',
      file,
      server,
      field: 'envFile',
      message: `server ${quoted(server)}: "envFile" is not read here (VS Code reads it): put the variables in "env", as \${VAR} references to the environment`,
    });
  }
  return problems;
}

/** A key written twice: JSON keeps the last one, a reviewer reads the first. */
function duplicateKeyProblems(file: string, text: string, serversKey: string): ConfigProblem[] {
  return findDuplicateKeys(text).map(({ path, key, offset }) => {
    const { line, column } = lineAndColumn(text, offset);
    const where = path.length > 0 ? ` in ${quoted(path.join('.'))}` : '';
    const problem: ConfigProblem = {
      severity: 'warning',
      file,
      line,
      column,
      message: `key ${quoted(key)} is written twice${where}; the last one is used: remove the other`,
    };
    // mcpServers.<name>.… is about that server; a key right under mcpServers is a server name.
    if (path[0] === serversKey) problem.server = path[1] ?? key;
    return problem;
  });
}

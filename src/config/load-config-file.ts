/** One config file → its servers, in file order, and its problems. Never throws. */
import { findDuplicateKeys } from './duplicate-keys.js';
import { lineAndColumn, parseJson } from './parse-json.js';
import { parseServerEntry } from './parse-server-entry.js';
import type { VariableSource } from './expand-variables.js';
import type { ConfigFileLocation } from './locate-config-files.js';
import { isJsonObject } from './null-proto.js';
import { readConfigFile } from './read-config-file.js';
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

  const parsed = parseJson(read.text);
  if (!parsed.ok) {
    const { line, column, reason } = parsed;
    return fileProblem(`not valid JSON at line ${line}, column ${column}: ${reason}; ${NOTHING_LOADED}`, { line, column });
  }
  if (!isJsonObject(parsed.value)) return fileProblem(`the file must hold a JSON object; ${NOTHING_LOADED}`);

  // Own property only: a top-level `__proto__` key must not stand in for `mcpServers`.
  const entries = Object.hasOwn(parsed.value, 'mcpServers') ? parsed.value.mcpServers : undefined;
  if (entries === undefined) return fileProblem(`no "mcpServers" object; ${NOTHING_LOADED}`, { field: 'mcpServers' });
  if (!isJsonObject(entries)) {
    return fileProblem(`"mcpServers" must be an object keyed by server name; ${NOTHING_LOADED}`, { field: 'mcpServers' });
  }

  const permissions = parseToolPermissions(file, location.scope, Object.hasOwn(parsed.value, 'permissions') ? parsed.value.permissions : undefined);
  const result: LoadedConfigFile = {
    servers: [],
    problems: [...duplicateKeyProblems(file, read.text), ...permissions.problems],
    toolPatterns: permissions.patterns,
  };
  const context = { file, scope: location.scope, env };
  for (const name of Object.keys(entries)) {
    const outcome = parseServerEntry(name, entries[name], context);
    if (outcome.server) result.servers.push(outcome.server);
    result.problems.push(...outcome.problems);
  }
  return result;
}

/** A key written twice: JSON keeps the last one, a reviewer reads the first. */
function duplicateKeyProblems(file: string, text: string): ConfigProblem[] {
  return findDuplicateKeys(text).map(({ path, key, offset }) => {
    const { line, column } = lineAndColumn(text, offset);
    const where = path.length > 0 ? ` in "${path.join('.')}"` : '';
    const problem: ConfigProblem = {
      severity: 'warning',
      file,
      line,
      column,
      message: `key "${key}" is written twice${where}; the last one is used: remove the other`,
    };
    // mcpServers.<name>.… is about that server; a key right under mcpServers is a server name.
    if (path[0] === 'mcpServers') problem.server = path[1] ?? key;
    return problem;
  });
}

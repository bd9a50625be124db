/**
 * `install <name>[@version]`: reads the server's `server.json` from an MCP Registry, turns it into
 * an entry (see registry-entry.ts), shows exactly what would run or where it would connect and
 * which variables it reads, asks, and writes it like `add` does. `--yes` for scripts.
 */
import type { DiscoveredServer } from '../../config/index.js';
import { describeServerDefinition } from '../approval-prompt.js';
import { reportDone, reported } from '../command-report.js';
import { configPathForScope, refuseIgnoredProjectFile, type WritableScope } from '../config-file-edit.js';
import { CliError } from '../json-codes.js';
import { confirmChange } from '../confirm-change.js';
import { untilInterrupted } from '../cancel-on-interrupt.js';
import { chooseRegistry, fetchServer, readOptions } from '../registry-client.js';
import { REGISTRY_SERVER_NAME } from '../registry-document.js';
import { planInstall, type EntryVariable, type InstallPlan } from '../registry-entry.js';
import { commandWord, terminalLine } from '../terminal-text.js';
import { checkServerName, writeServerEntry } from './add.js';

export interface InstallOptions {
  registry?: string;
  name?: string;
  scope: WritableScope;
  project?: string;
  remote?: boolean;
  yes?: boolean;
  force?: boolean;
  json?: boolean;
  timeout: number;
}

/** `io.github.owner/weather@1.2.0` → name and version (`latest` when none). */
function parseWanted(text: string): { name: string; version: string } {
  const at = text.indexOf('@');
  const name = at === -1 ? text : text.slice(0, at);
  const version = at === -1 ? 'latest' : text.slice(at + 1);
  if (!REGISTRY_SERVER_NAME.test(name) || version === '') {
    throw new CliError(
      'INVALID_ARGUMENTS',
      `"${terminalLine(text)}" is not a registry server name: they look like io.github.owner/server (optionally @1.2.3). Find one with \`mcp-statechart search --registry <words>\`.`,
    );
  }
  return { name, version };
}

/** The local name: `--name`, else the part after the registry name's `/`, made a usable server name. */
function localName(registryName: string, flag: string | undefined): string {
  if (flag !== undefined) return flag;
  const last = registryName.slice(registryName.indexOf('/') + 1);
  return last.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64) || 'server';
}

function variableLine(variable: EntryVariable): string {
  const traits = [variable.secret ? 'secret' : undefined, variable.required ? 'required' : undefined, variable.fallback !== undefined ? `default ${variable.fallback}` : undefined].filter(Boolean);
  const about = variable.description ? `: ${variable.description}` : '';
  return `    ${variable.name}${traits.length > 0 ? ` (${traits.join(', ')})` : ''}${about}`;
}

/** Every line but the definition (which escapes its own) is escaped here: all of it comes from the registry. */
function consentText(wanted: string, version: string, registry: string, status: string, statusMessage: string | undefined, plan: InstallPlan, server: DiscoveredServer): string {
  const lines = [`Install ${wanted} ${version} from ${registry} (${plan.source}) as "${server.name}" into ${server.source}:`];
  if (status === 'deprecated') lines.push(`  Warning: the registry marks this server deprecated${statusMessage ? `: ${statusMessage}` : ''}.`);
  const after: string[] = [];
  if (plan.variables.length > 0) after.push('  Set these in your environment before it runs (read as ${NAME}; no value is written into the file):', ...plan.variables.map(variableLine));
  if (plan.optional.length > 0) after.push('  Optional, not set (add them to the entry if you need them):', ...plan.optional.map(variableLine));
  for (const skipped of plan.skipped) after.push(`  Passed over: ${skipped}.`);
  return [...lines.map(terminalLine), describeServerDefinition(server), ...after.map(terminalLine)].join('\n');
}

export function runInstall(wanted: string, options: InstallOptions): Promise<number> {
  return reported(options, async () => {
    const { name, version } = parseWanted(wanted);
    const registry = await chooseRegistry(options.registry);
    const found = await untilInterrupted((interrupt) => fetchServer(registry.url, name, version, readOptions(interrupt, options.timeout, registry.from)));
    if (found === undefined) {
      throw new CliError(
        'NOT_FOUND',
        `The registry at ${registry.url} has no ${name}${version === 'latest' ? '' : ` version ${version}`}. Find the exact name with \`mcp-statechart search --registry <words>\`.`,
      );
    }
    if (found.status === 'deleted') {
      throw new CliError('DELETED', `The registry lists ${name} ${found.server.version} as deleted${found.statusMessage ? ` (${terminalLine(found.statusMessage)})` : ''}; it is not installed.`);
    }
    const plan = planInstall(found.server, registry.url, options.remote);
    if (!('entry' in plan)) {
      throw new CliError('NOTHING_INSTALLABLE', [`${name} ${found.server.version} has no package or remote this CLI can use:`, ...plan.skipped.map((reason) => `  ${reason}`)].join('\n'));
    }
    const serverName = localName(name, options.name);
    checkServerName(serverName);
    const file = await configPathForScope(options.scope, options.project);
    // Before the consent text and its question: a yes to a write that will be refused asks for nothing.
    await refuseIgnoredProjectFile(file, options.scope);
    const transport = typeof plan.entry.url === 'string' ? (plan.entry.type as 'http' | 'sse') : 'stdio';
    const shown: DiscoveredServer = { name: serverName, config: plan.entry, written: plan.entry, transport, scope: options.scope, source: file, disabled: false };
    const text = consentText(name, found.server.version, registry.url, found.status, found.statusMessage, plan, shown);
    if (options.yes && !options.json) process.stderr.write(`${text}\n`);
    await confirmChange(options, text, 'Install it?', { base: 'install', done: 'installed' });
    const result = await writeServerEntry(serverName, plan.entry, options);
    const needed = plan.variables.filter((variable) => variable.fallback === undefined).map((variable) => variable.name);
    const done = [
      `Installed ${name} ${found.server.version} as "${serverName}" in ${result.file} (${options.scope} scope).`,
      ...(needed.length > 0 ? [`Set ${needed.join(', ')} in your environment before it runs.`] : []),
      `Check it with \`mcp-statechart get ${commandWord(serverName)}\`.`,
    ].join('\n');
    return reportDone(options, done, {
      name: serverName,
      registryName: name,
      version: found.server.version,
      status: found.status,
      scope: options.scope,
      file: result.file,
      source: plan.source,
      variables: plan.variables.map((variable) => variable.name),
      entry: plan.entry,
    });
  });
}

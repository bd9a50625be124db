/**
 * The servers the model may use: the caller's record, less disabled and not-allowed ones, and
 * the words for refusing any other name. The one place that decides "may the model use X?".
 */
import type { McpServerConfig } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import { terminalText } from '../../machines/control-characters.js';
import { projectFileOf } from '../manifest-index/index.js';
import { closestNames, foldedAlike } from '../search/index.js';
import { descriptionWithinCap } from '../text-limits.js';
import { listNames } from './list-names.js';
import { quoted } from './model-text.js';
import { compilePermissions } from './permissions.js';
import type { DescribedServerEntry, LoaderPermissions, LoaderServers } from './types.js';

export interface AvailableServer {
  name: string;
  config: McpServerConfig;
  description?: string;
  /** A project server's `.mcp.json`: its index entry is its project's own (see src/manifest-index). */
  projectFile?: string;
}

/**
 * Up to this many servers, load_mcp lists each (an enum and a line per server); above it the
 * loader definitions would grow with the config (~87 bytes a server: 87 KB at 1,000), so the model
 * finds servers through search_mcp_tools instead and load_mcp takes any name as a string.
 */
export const SERVER_LIST_LIMIT = 30;

export interface ServerCatalog {
  /** Allowed and enabled, in the caller's order. */
  available: AvailableServer[];
  /** The names of `available`: the enum the model chooses from while they are `listed`. */
  names: string[];
  /** At most SERVER_LIST_LIMIT servers: load_mcp names each; else the model searches for them. */
  listed: boolean;
  /** `available` as the record `manager.configure` takes. */
  configs: Record<string, McpServerConfig>;
  /** The `projectFile` of each available project server. */
  projectFiles: Record<string, string>;
  /** Why the model may not use this server, or undefined when it may. */
  refusal(server: string): string | undefined;
  /** Whether the model may see and call this tool of an allowed server (the `mcpTools` patterns). */
  allowsTool(server: string, tool: string): boolean;
  /** Servers the model turned off for this session (load_mcp with `enabled: false`): searched, called and read by no tool but load_mcp. */
  readonly switchedOff: ReadonlySet<string>;
  /** Counts the model's switches, so what is built on `switchedOff` knows when to look again. */
  readonly switches: number;
  /** Turns an allowed server off (true) or back on (false) for this session. */
  switchOff(server: string, off: boolean): void;
  /**
   * Allowed servers that are off until a person approves them: a project server under `ask`, one
   * that appeared or changed while `serve` ran. load_mcp names them, so the model can ask the user.
   */
  awaitingApproval: string[];
  /** Why servers may be missing (`serversNotice`), as the model reads it; empty when there is no notice. */
  notice: string;
  /** Why a tool other than load_mcp may not use this server now, or undefined. */
  offRefusal(server: string): string | undefined;
}

function isDescribedEntry(entry: DescribedServerEntry | McpServerConfig): entry is DescribedServerEntry {
  // A discovery entry wraps the config; a plain config has a command or a url of its own.
  const { config, command, url } = entry as { config?: unknown; command?: unknown; url?: unknown };
  return typeof config === 'object' && config !== null && command === undefined && url === undefined;
}

function normalize(entry: DescribedServerEntry | McpServerConfig): DescribedServerEntry {
  if (isDescribedEntry(entry)) {
    return {
      config: entry.config,
      description: entry.description ?? entry.config.description,
      disabled: entry.disabled === true || entry.config.disabled === true,
      disabledBecause: entry.disabledBecause,
      trust: entry.trust,
      scope: entry.scope,
      source: entry.source,
    };
  }
  return { config: entry, description: entry.description, disabled: entry.disabled === true };
}

/**
 * Off for a reason of its own (`disabledBecause`), not by its config nor denied: what sets one is
 * the wait for a person (project trust under `ask`, serve's hold on servers that appear).
 */
function isAwaitingApproval(entry: DescribedServerEntry): boolean {
  return entry.disabledBecause !== undefined && entry.trust !== 'denied';
}

export function buildServerCatalog(
  servers: LoaderServers,
  permissions: LoaderPermissions | undefined,
  serversNotice?: string,
  skippedServers: Record<string, string> = {},
): ServerCatalog {
  const known = new Map<string, DescribedServerEntry>();
  for (const name of Object.keys(servers)) known.set(name, normalize(servers[name]!));

  // Compiled once: refusal and allowsTool run on every loader call.
  const { allowsServer, allowsTool } = compilePermissions(permissions);
  const available: AvailableServer[] = [];
  const awaitingApproval: string[] = [];
  for (const [name, entry] of known) {
    if (!allowsServer(name)) continue;
    if (entry.disabled) {
      if (isAwaitingApproval(entry)) awaitingApproval.push(name);
      continue;
    }
    // A description goes into load_mcp's definition and search's ranking: a huge one would fill the model's context.
    const description = entry.description === undefined ? undefined : descriptionWithinCap(entry.description);
    available.push({ name, config: entry.config, description, projectFile: projectFileOf(entry) });
  }
  const names = available.map((server) => server.name);
  const configs = nameRecord<McpServerConfig>();
  const projectFiles = nameRecord<string>();
  for (const server of available) {
    configs[server.name] = server.config;
    if (server.projectFile !== undefined) projectFiles[server.name] = server.projectFile;
  }
  const listed = names.length <= SERVER_LIST_LIMIT;
  const suggestions = (server: string) => {
    // Said, never taken: "CAFÉ" may be a look-alike of "café" meant to reach it, and a name is looked up exactly.
    const alike = foldedAlike(server, names);
    if (alike.length > 0) return `Did you mean ${listNames(alike, undefined, { beside: [server] })}? Server names match exactly, accents, case and Unicode form included.`;
    // Beside the name asked for: a server that prints as it (`fѕ` for `fs`) says how it differs.
    if (listed) return `Servers you can use: ${listNames(names, undefined, { beside: [server] })}.`;
    const closest = closestNames(server, names);
    const searchHint = 'search_mcp_tools finds servers by what they do.';
    return closest.length > 0 ? `Closest names: ${listNames(closest, undefined, { beside: [server] })}. ${searchHint}` : searchHint;
  };

  const notice = serversNotice === undefined ? '' : terminalText(serversNotice);
  const switchedOff = new Set<string>();
  let switches = 0;
  return {
    available,
    awaitingApproval,
    notice,
    names,
    listed,
    configs,
    projectFiles,
    refusal(server) {
      // Permissions first: a denied name gets the same answer whether or not it exists.
      if (!allowsServer(server)) {
        return `MCP server ${quoted(server)} is not allowed for this agent; do not try it again. ${suggestions(server)}`;
      }
      const entry = known.get(server);
      if (!entry && Object.hasOwn(skippedServers, server)) {
        return `MCP server ${quoted(server)} is in the config, but its entry was skipped: ${terminalText(skippedServers[server]!)}. Do not try it again now; tell the user, who can fix the entry (\`mcp-statechart servers\` lists the problems). ${suggestions(server)}`;
      }
      if (!entry) return `Unknown MCP server ${quoted(server)}. ${suggestions(server)}${notice === '' ? '' : ` ${notice}`}`;
      if (entry.disabled && entry.disabledBecause !== undefined) {
        return `MCP server ${quoted(server)} is off: ${terminalText(entry.disabledBecause)} Do not try it again now; tell the user. ${suggestions(server)}`;
      }
      if (entry.disabled) {
        return `MCP server ${quoted(server)} is disabled in its config. Tell the user if you need it: they can enable it. ${suggestions(server)}`;
      }
      return undefined;
    },
    allowsTool,
    switchedOff,
    get switches() {
      return switches;
    },
    switchOff(server, off) {
      const changed = off ? !switchedOff.has(server) : switchedOff.has(server);
      if (!changed) return;
      if (off) switchedOff.add(server);
      else switchedOff.delete(server);
      switches++;
    },
    offRefusal(server) {
      if (!switchedOff.has(server)) return undefined;
      return `MCP server ${quoted(server)} is turned off for this session (load_mcp with enabled: false). load_mcp { server: ${quoted(server)}, enabled: true } turns it back on.`;
    },
  };
}

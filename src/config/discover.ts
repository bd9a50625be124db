/** discoverMcpServers: read the user and project files (or the explicit ones) and merge them. */
import { silentLogger } from '../logger.js';
import type { VariableSource } from './expand-variables.js';
import { loadConfigFile } from './load-config-file.js';
import { locateConfigFiles, type ConfigFileLocation } from './locate-config-files.js';
import { quoted } from '../../machines/control-characters.js';
import { nameRecord } from '../../machines/name-record.js';
import { applyProjectTrust } from './project-trust.js';
import { mergeToolPatterns } from './tool-permissions.js';
import { reportProblems } from './report-problems.js';
import type { ConfigProblem, DiscoverMcpServersOptions, DiscoveredServer, DiscoveryResult } from './types.js';

/**
 * Never rejects for bad input: a missing file is skipped silently (unless named in `configPaths`),
 * an unreadable or invalid one becomes a problem and the other files still load.
 *
 * @example
 * ```ts
 * import { discoverMcpServers } from 'mcp-statechart';
 *
 * const { servers, problems } = await discoverMcpServers({ projectRoot: process.cwd() });
 * for (const problem of problems) console.warn(problem.message);
 * console.log(Object.keys(servers));
 * ```
 */
export async function discoverMcpServers(options: DiscoverMcpServersOptions = {}): Promise<DiscoveryResult> {
  return discoverIn(await locateConfigFiles(options), options);
}

/** Discovery over files already located: what `discoverMcpServers` and every re-read of a watcher give. */
export async function discoverIn(files: readonly ConfigFileLocation[], options: DiscoverMcpServersOptions): Promise<DiscoveryResult> {
  const { replaced, ...merged } = await loadAndMerge(files, options.env ?? process.env);
  const trusted = keepShadowedServers(await applyProjectTrust(merged, options), replaced);
  reportProblems(trusted.problems, options.logger ?? silentLogger);
  return trusted;
}

/** A server a later file's entry of the same name replaced, and the warning that says so. */
interface Replaced {
  server: DiscoveredServer;
  warning: ConfigProblem;
}

/** Reads the files (in parallel) and merges them in precedence order: a later file wins a name clash. */
async function loadAndMerge(files: readonly ConfigFileLocation[], env: VariableSource): Promise<DiscoveryResult & { replaced: Map<string, Replaced> }> {
  const loaded = await Promise.all(files.map((location) => loadConfigFile(location, env)));

  const servers = nameRecord<DiscoveredServer>();
  const problems: ConfigProblem[] = [];
  const replaced = new Map<string, Replaced>();
  for (const file of loaded) {
    // A loop, not push(...spread): a hostile file with 200,000 bad entries would overflow the call stack.
    for (const problem of file.problems) problems.push(problem);
    for (const server of file.servers) {
      const earlier = Object.hasOwn(servers, server.name) ? servers[server.name] : undefined;
      if (earlier) {
        const warning = clashWarning(server, earlier);
        problems.push(warning);
        replaced.set(server.name, { server: earlier, warning });
      }
      servers[server.name] = server;
    }
  }
  return { servers, problems, toolPermissions: mergeToolPatterns(loaded.map((file) => file.toolPatterns ?? {})), replaced };
}

/**
 * A project entry the trust policy keeps off never switches off the server of the same name it
 * would replace: that one stays in use, as it is, and the project entry is listed in `shadowed`,
 * with the problem on it. Once approved, it replaces the other as a trusted one does.
 */
function keepShadowedServers(result: DiscoveryResult, replaced: ReadonlyMap<string, Replaced>): DiscoveryResult {
  const kept = [...replaced].filter(([name]) => result.servers[name]?.trust !== undefined);
  if (kept.length === 0) return result;
  const servers = nameRecord(result.servers);
  const shadowed: DiscoveredServer[] = [];
  // The clash warning ("overrides …") is not true of these: each is replaced, in place, by what is.
  const instead = new Map<ConfigProblem, ConfigProblem>();
  for (const [name, { server, warning }] of kept) {
    const project = servers[name] as DiscoveredServer;
    shadowed.push(project);
    servers[name] = server;
    instead.set(warning, {
      severity: 'warning',
      file: project.source,
      server: name,
      message:
        `project server ${quoted(name)} does not replace the server ${quoted(name)} of ${server.source} (${server.scope}), which stays in use as it is, ` +
        `while the project's ${project.trust === 'denied' ? 'servers are denied' : 'entry waits for approval'}`,
    });
  }
  const problems = result.problems.map((problem) => instead.get(problem) ?? problem);
  return { ...result, servers, problems, shadowed };
}

function clashWarning(winner: DiscoveredServer, loser: DiscoveredServer): ConfigProblem {
  return {
    severity: 'warning',
    file: winner.source,
    server: winner.name,
    message: `server ${quoted(winner.name)} (${winner.scope}) overrides the one defined in ${loser.source} (${loser.scope})`,
  };
}

/** discoverMcpServers: read the user and project files (or the explicit ones) and merge them. */
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { VariableSource } from './expand-variables.js';
import { loadConfigFile } from './load-config-file.js';
import { locateConfigFiles, type ConfigFileLocation } from './locate-config-files.js';
import { nameRecord } from '../../machines/name-record.js';
import { applyProjectTrust } from './project-trust.js';
import { mergeToolPatterns } from './tool-permissions.js';
import { reportProblems } from './report-problems.js';
import type { ConfigProblem, DiscoverMcpServersOptions, DiscoveredServer, DiscoveryResult } from './types.js';

/**
 * Never rejects for bad input: a missing file is skipped silently (unless named in `configPaths`),
 * an unreadable or invalid one becomes a problem and the other files still load.
 */
export async function discoverMcpServers(options: DiscoverMcpServersOptions = {}): Promise<DiscoveryResult> {
  return discoverIn(await locateConfigFiles(options), options);
}

/** Discovery over files already located: what `discoverMcpServers` and every re-read of a watcher give. */
export async function discoverIn(files: readonly ConfigFileLocation[], options: DiscoverMcpServersOptions): Promise<DiscoveryResult> {
  const logger = options.logger ?? silentLogger;
  const merged = await loadAndMerge(files, options.env ?? process.env, logger);
  const trusted = await applyProjectTrust(merged, options);
  reportProblems(trusted.problems.slice(merged.problems.length), logger);
  return trusted;
}

/** Reads the files (in parallel) and merges them in precedence order: a later file wins a name clash. */
export async function loadAndMerge(
  files: readonly ConfigFileLocation[],
  env: VariableSource,
  logger: Logger,
): Promise<DiscoveryResult> {
  const loaded = await Promise.all(files.map((location) => loadConfigFile(location, env)));

  const servers = nameRecord<DiscoveredServer>();
  const problems: ConfigProblem[] = [];
  for (const file of loaded) {
    // A loop, not push(...spread): a hostile file with 200,000 bad entries would overflow the call stack.
    for (const problem of file.problems) problems.push(problem);
    for (const server of file.servers) {
      const earlier = Object.hasOwn(servers, server.name) ? servers[server.name] : undefined;
      if (earlier) problems.push(clashWarning(server, earlier));
      servers[server.name] = server;
    }
  }

  reportProblems(problems, logger);
  return { servers, problems, toolPermissions: mergeToolPatterns(loaded.map((file) => file.toolPatterns ?? {})) };
}

function clashWarning(winner: DiscoveredServer, loser: DiscoveredServer): ConfigProblem {
  return {
    severity: 'warning',
    file: winner.source,
    server: winner.name,
    message: `server "${winner.name}" (${winner.scope}) overrides the one defined in ${loser.source} (${loser.scope})`,
  };
}

/**
 * `serve` follows its config while it runs: the config files are watched (with the same trust
 * policy as at start), and the project can come from the host's MCP roots. Every change updates
 * the manager and the loader tools in place, and tells the host with `tools/list_changed` when
 * what it sees (load_mcp's enum and description) changed.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServerConfig } from '../../machines/types.js';
import { watchMcpServers, type ConfigWatcher, type DiscoveryResult } from '../config/index.js';
import { holdWhileFilesBreak } from '../config/watch.js';
import type { ConfigurableManager } from '../config/types.js';
import { nameRecord } from '../../machines/name-record.js';
import type { Logger } from '../logger.js';
import { onHostRootsChanged } from '../serve/host-roots.js';
import type { LoaderTool } from '../tools/index.js';
import { isServerAllowed } from '../tools/permissions.js';
import { discoveryOptions, permissionsFrom, type GlobalOptions } from './options.js';

export interface ServeConfigContext {
  options: GlobalOptions;
  server: Server;
  manager: Pick<ConfigurableManager, 'configure'>;
  /** The list serve's handlers read: replaced in place, so they always see the current tools. */
  tools: LoaderTool[];
  /** What serve started with: the baseline for telling a half-saved file from one that was broken already. */
  discovery: DiscoveryResult;
  /** Builds the loader tools over a discovery result (see session.ts), with serve's permissions and approval. */
  toolsFor: (result: DiscoveryResult) => LoaderTool[];
  logger: Logger;
}

/** Roots a host may send; more are ignored (a root list is a handful of folders). */
const MAX_ROOTS = 100;
const LIST_ROOTS_TIMEOUT_MS = 10_000;

/** The first `file://` root that holds a `.mcp.json`: the project the host has open. */
export function projectFromRoots(roots: ReadonlyArray<{ uri: string }>): string | undefined {
  for (const root of roots.slice(0, MAX_ROOTS)) {
    if (!root.uri.startsWith('file://')) continue;
    let folder: string;
    try {
      folder = fileURLToPath(root.uri);
    } catch {
      continue; // a file URL with a host part, or otherwise not a local path
    }
    if (existsSync(join(folder, '.mcp.json'))) return folder;
  }
  return undefined;
}

function toolDefinitions(tools: readonly LoaderTool[]): string {
  return JSON.stringify(tools.map((tool) => [tool.name, tool.description, tool.parameters]));
}

/**
 * Starts following the config. Call it before the server connects, so the host's roots are
 * asked for as soon as it has initialized. `close()` stops the watching.
 */
export async function followServeConfig(context: ServeConfigContext): Promise<ConfigWatcher> {
  const { options, server, manager, tools, toolsFor, discovery, logger } = context;
  const permissions = permissionsFrom(options);

  // A half-saved file keeps the servers it defined until it loads again (see config/watch.ts).
  const apply = holdWhileFilesBreak((result: DiscoveryResult) => {
    const allowed = nameRecord<McpServerConfig>();
    for (const entry of Object.values(result.servers)) {
      if (!entry.disabled && isServerAllowed(permissions, entry.name)) allowed[entry.name] = entry.config;
    }
    // The whole set (configure replaces by default): removed servers disconnect, changed ones reconnect, the others stay as they are.
    manager.configure(allowed);
    const next = toolsFor(result);
    const changed = toolDefinitions(next) !== toolDefinitions(tools);
    tools.splice(0, tools.length, ...next);
    logger.info(`config changed: ${Object.keys(allowed).length} servers available`);
    if (changed) server.sendToolListChanged().catch((error: Error) => logger.warn(`could not tell the host the tools changed: ${error.message}`));
  }, logger, discovery);

  let watcher: ConfigWatcher | undefined;
  let projectRoot = options.project ? resolve(options.project) : undefined;
  const watchFrom = async (root: string | undefined, readNow: boolean) => {
    await watcher?.close();
    watcher = await watchMcpServers({ ...discoveryOptions(options, logger, false), projectRoot: root, emitInitial: readNow }, apply);
  };
  // One change at a time: a roots answer and a file event never interleave their watchers.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (task: () => Promise<void>) => {
    queue = queue.then(task).catch((error: Error) => logger.warn(`serve config: ${error.message}`));
    return queue;
  };

  await enqueue(() => watchFrom(projectRoot, false));

  // Flags are the user's explicit choice; only without them does the host's open folder count.
  if (!options.project && options.config.length === 0) {
    const lookAtRoots = () =>
      enqueue(async () => {
        if (!server.getClientCapabilities()?.roots) return;
        const { roots } = await server.listRoots(undefined, { timeout: LIST_ROOTS_TIMEOUT_MS });
        const found = projectFromRoots(roots);
        if (found === projectRoot) return;
        logger.info(found ? `project from the host's roots: ${found}` : 'the host has no root with a .mcp.json any more');
        projectRoot = found;
        await watchFrom(found, true);
      });
    const initialized = server.oninitialized;
    server.oninitialized = () => {
      initialized?.();
      void lookAtRoots();
    };
    onHostRootsChanged(server, () => void lookAtRoots());
  }

  return {
    async close() {
      await queue;
      await watcher?.close();
    },
  };
}

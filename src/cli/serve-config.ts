/**
 * `serve` follows its config while it runs: the config files are watched (with the same trust
 * policy as at start), and the project can come from the host's MCP roots. Every change updates
 * the manager and the loader tools in place, and tells the host with `tools/list_changed` when
 * what it sees (load_mcp's enum and description) changed.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../machines/types.js';
import { defaultApprovalsPath, watchMcpServers, type ConfigWatcher, type DiscoveryResult } from '../config/index.js';
import { holdWhileFilesBreak } from '../config/watch.js';
import type { ConfigurableManager } from '../config/types.js';
import { nameRecord } from '../../machines/name-record.js';
import type { Logger } from '../logger.js';
import type { ServeHost } from '../serve/host.js';
import type { LoaderTool } from '../tools/index.js';
import type { LoaderPermissions } from '../tools/types.js';
import { isServerAllowed } from '../tools/permissions.js';
import { explainLike } from '../tools/unoffered-tool.js';
import { discoveryOptions, permissionsFrom, type GlobalOptions } from './options.js';
import { holdNewServers } from './serve-new-servers.js';

export interface ServeConfigContext {
  options: GlobalOptions;
  manager: Pick<ConfigurableManager, 'configure'>;
  /** What serve started with: the baseline for telling a half-saved file from one that was broken already. */
  discovery: DiscoveryResult;
  /** Takes each re-read config once the manager has it: rebuilds the loader tools hosts see. */
  reconfigure: (result: DiscoveryResult) => void;
  /** The stdio host: its open folder (its roots, of either era) can name the project. Over HTTP there is none. */
  host?: ServeHost;
  logger: Logger;
}

/** Roots a host may send; more are ignored (a root list is a handful of folders). */
const MAX_ROOTS = 100;
const LIST_ROOTS_TIMEOUT_MS = 10_000;
/** While a server waits for a person's confirmation, the approvals file is looked at this often. */
const APPROVALS_POLL_MS = 1_000;

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
 * stdio serve's `reconfigure`: `tools` (the list its handlers read) is replaced in place, and the
 * host is told `tools/list_changed` when what it sees (load_mcp's enum and description) changed.
 */
export function replaceTools(host: ServeHost, tools: LoaderTool[], toolsFor: (result: DiscoveryResult) => LoaderTool[], logger: Logger) {
  return (result: DiscoveryResult): void => {
    const next = toolsFor(result);
    const changed = toolDefinitions(next) !== toolDefinitions(tools);
    tools.splice(0, tools.length, ...next);
    explainLike(tools, next);
    if (changed) host.sendToolListChanged().catch((error: Error) => logger.warn(`could not tell the host the tools changed: ${error.message}`));
  };
}

/**
 * The servers serve offers from a discovery, allowed by --allow/--deny. One that is off (`"disabled":
 * true` in its entry, or waiting for a person: `disabledBecause`) is passed switched off, not left
 * out: a call in flight when its entry is switched off or held is then told it is off, not removed.
 */
export function servedServers(result: DiscoveryResult, permissions: LoaderPermissions): Record<string, McpServerConfig> {
  const allowed = nameRecord<McpServerConfig>();
  for (const entry of Object.values(result.servers)) {
    if (!isServerAllowed(permissions, entry.name)) continue;
    allowed[entry.name] = entry.disabled ? { ...entry.config, disabled: true } : entry.config;
  }
  return allowed;
}

/**
 * Starts following the config. Call it before the server connects, so the host's roots are
 * asked for as soon as it has initialized. `close()` stops the watching.
 */
export async function followServeConfig(context: ServeConfigContext): Promise<ConfigWatcher> {
  const { options, host, manager, reconfigure, discovery, logger } = context;
  const permissions = permissionsFrom(options);
  // One change at a time: a roots answer, a file event and an approval never interleave.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (task: () => Promise<void>) => {
    queue = queue.then(task).catch((error: Error) => logger.warn(`serve config: ${error.message}`));
    return queue;
  };

  const applyNow = (result: DiscoveryResult) => {
    const allowed = servedServers(result, permissions);
    // The whole set (configure replaces by default): removed and held servers disconnect, changed ones reconnect, the others stay as they are.
    manager.configure(allowed);
    reconfigure(result);
    logger.info(`config changed: ${Object.values(allowed).filter((config) => !config.disabled).length} servers available`);
  };

  // Servers added or changed while serving wait for a person (see serve-new-servers.ts); the
  // approvals file is looked at while any waits, so a confirmation applies without a restart.
  const hold = holdNewServers(discovery, {});
  let latest = discovery;
  let poll: NodeJS.Timeout | undefined;
  let approvalsSeen: number | undefined;
  const approvalsChanged = async () => {
    const mtime = (await stat(defaultApprovalsPath()).catch(() => undefined))?.mtimeMs;
    const changed = mtime !== approvalsSeen;
    approvalsSeen = mtime;
    return changed;
  };
  // A save of the file (or an approval of another server) re-reads it all: a server still held was warned of already.
  let warned = new Set<string>();
  const applyHeld = async (result: DiscoveryResult) => {
    latest = result;
    await approvalsChanged();
    const checked = await hold(result);
    const warnings = new Set(checked.problems.slice(result.problems.length).map((problem) => problem.message));
    for (const message of warnings) if (!warned.has(message)) logger.warn(message);
    warned = warnings;
    applyNow(checked);
    const waiting = Object.values(checked.servers).some((entry) => entry.disabledBecause !== undefined);
    clearInterval(poll);
    poll = waiting
      ? setInterval(() => void enqueue(async () => {
          if (await approvalsChanged()) await applyHeld(latest);
        }), APPROVALS_POLL_MS).unref()
      : undefined;
  };

  // A half-saved file keeps the servers it defined until it loads again (see config/watch.ts).
  const apply = holdWhileFilesBreak((result: DiscoveryResult) => void enqueue(() => applyHeld(result)), logger, discovery);

  let watcher: ConfigWatcher | undefined;
  let projectRoot = options.project ? resolve(options.project) : undefined;
  const watchFrom = async (root: string | undefined, readNow: boolean) => {
    await watcher?.close();
    watcher = await watchMcpServers({ ...discoveryOptions(options, logger, false), projectRoot: root, emitInitial: readNow }, apply);
  };

  await enqueue(() => watchFrom(projectRoot, false));

  // Flags are the user's explicit choice; only without them does the host's open folder count.
  if (host && !options.project && options.config.length === 0) {
    // The host's roots come as it gives them: a 2025 host is asked once it has initialized (and
    // after each roots/list_changed, see followHostRoots); a 2026-07-28 host on its first call
    // (ServeHost.rootsBeforeFirstCall), which waits until the project's servers are in place.
    host.onRootsGiven(async (roots) => {
      await enqueue(async () => {
        const found = projectFromRoots(roots);
        if (found === projectRoot) return;
        logger.info(found ? `project from the host's roots: ${found}` : 'the host has no root with a .mcp.json any more');
        projectRoot = found;
        await watchFrom(found, true);
      });
      // Reading the project queued applying it: the call waits for that too.
      await queue;
    });
    host.onInstance((server, era) => {
      if (era !== 'legacy') return;
      server.oninitialized = () => {
        if (!host.getClientCapabilities()?.roots) return;
        host.listRoots(undefined, { timeout: LIST_ROOTS_TIMEOUT_MS }).catch((error: Error) => logger.warn(`reading the host's roots failed: ${error.message}`));
      };
    });
  }

  return {
    async close() {
      clearInterval(poll);
      await queue;
      await watcher?.close();
    },
  };
}

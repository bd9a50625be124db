import type { McpConnectOptions } from '../../machines/types.js';
import type { DiscoveryResult } from '../config/index.js';
import type { Logger } from '../logger.js';
import { McpConnectionManager, type McpConnectionManagerOptions } from '../manager.js';
import {
  createLoaderTools,
  type ApprovalOptions,
  type CreateLoaderToolsOptions,
  type LoaderTool,
  type LoaderToolName,
  type LoaderTools,
  type LoaderToolsManager,
} from '../tools/index.js';
import { permissionsFrom, type GlobalOptions } from './options.js';
import { skippedServerReasons, unreadConfigNotice } from './unread-config.js';

/** How the loader tools ask before a call, and which manifest index they use (default: the user's). */
export type LoaderSessionOptions = ApprovalOptions &
  Pick<CreateLoaderToolsOptions, 'manifestIndex' | 'resultBudget'> & {
    /** What the loader tools see of the manager (default: the manager itself), e.g. a view that keeps raw results. */
    toolsView?: (manager: McpConnectionManager) => LoaderToolsManager;
    /** Which loader tools (default: createLoaderTools's); serve offers search from the start. */
    create?: (options: CreateLoaderToolsOptions) => LoaderTools;
  };

/**
 * The manager defaults of a command that connects once for one request: no retries, and a
 * `--timeout` that bounds connecting, so the hint of a connect timeout ("give it longer with
 * --timeout") is something the person can do.
 */
export function oneShotDefaults(connectTimeoutMs: number | undefined): McpConnectOptions {
  return { maxRetries: 0, ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }) };
}

/** A manager and the loader tools over the discovered servers, as every command that talks to servers needs them. */
export function openLoaderSession(
  discovery: DiscoveryResult,
  options: GlobalOptions,
  logger: Logger,
  managerOptions: McpConnectionManagerOptions = {},
  { toolsView, create = createLoaderTools, ...toolOptions }: LoaderSessionOptions = {},
) {
  const manager = new McpConnectionManager({ logger, ...managerOptions });
  const seen = toolsView?.(manager) ?? manager;
  /**
   * The loader tools over a discovery result, with the same flags and approval (serve rebuilds
   * them when the config changes; the files' tool patterns may have changed too).
   */
  const toolsFor = (result: DiscoveryResult) =>
    create({
      manager: seen,
      servers: result.servers,
      permissions: permissionsFrom(options, result.toolPermissions),
      exposure: options.exposure,
      serversNotice: unreadConfigNotice(result),
      skippedServers: skippedServerReasons(result),
      ...toolOptions,
    });
  const tools = toolsFor(discovery);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    manager,
    tools,
    toolsFor,
    tool(name: LoaderToolName): LoaderTool | undefined {
      return byName.get(name);
    },
  };
}

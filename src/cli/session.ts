import type { DiscoveryResult } from '../config/index.js';
import type { Logger } from '../logger.js';
import { McpConnectionManager, type McpConnectionManagerOptions } from '../manager.js';
import { createLoaderTools, type ApprovalOptions, type LoaderTool, type LoaderToolName } from '../tools/index.js';
import { permissionsFrom, type GlobalOptions } from './options.js';

/** A manager and the loader tools over the discovered servers, as every command that talks to servers needs them. */
export function openLoaderSession(
  discovery: DiscoveryResult,
  options: GlobalOptions,
  logger: Logger,
  managerOptions: McpConnectionManagerOptions = {},
  approval: ApprovalOptions = {},
) {
  const manager = new McpConnectionManager({ logger, ...managerOptions });
  const tools = createLoaderTools({ manager, servers: discovery.servers, permissions: permissionsFrom(options, discovery.toolPermissions), ...approval });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    manager,
    tools,
    tool(name: LoaderToolName): LoaderTool | undefined {
      return byName.get(name);
    },
  };
}

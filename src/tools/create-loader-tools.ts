/** The entry point: the loader tools the permissions allow, over servers the manager now knows. */
import { callMcpToolTool } from './call-mcp-tool.js';
import { loadMcpTool } from './load-mcp.js';
import { isToolEnabled } from './permissions.js';
import { readMcpResourceTool } from './read-mcp-resource.js';
import { DEFAULT_RESULT_BUDGET } from './results.js';
import { buildServerCatalog } from './server-catalog.js';
import type { LoaderToolContext } from './tool-context.js';
import type { CreateLoaderToolsOptions, LoaderTool, LoaderToolName } from './types.js';

const TOOL_FACTORIES: Record<LoaderToolName, (context: LoaderToolContext) => LoaderTool> = {
  load_mcp: loadMcpTool,
  call_mcp_tool: callMcpToolTool,
  read_mcp_resource: readMcpResourceTool,
};

/**
 * Adds every allowed, enabled server to the manager (servers it already knew stay) and
 * returns the permitted tools.
 */
export function createLoaderTools(options: CreateLoaderToolsOptions): LoaderTool[] {
  const catalog = buildServerCatalog(options.servers, options.permissions);
  // Servers the model may not use are never configured, so nothing can connect them by mistake.
  options.manager.configure(catalog.configs, undefined, 'merge');
  const context: LoaderToolContext = {
    manager: options.manager,
    catalog,
    resultBudget: options.resultBudget ?? DEFAULT_RESULT_BUDGET,
  };
  return (Object.keys(TOOL_FACTORIES) as LoaderToolName[])
    .filter((name) => isToolEnabled(options.permissions, name))
    .map((name) => TOOL_FACTORIES[name](context));
}

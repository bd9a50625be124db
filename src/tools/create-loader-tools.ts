/** The entry point: the loader tools the permissions allow, over servers the manager now knows. */
import { ManifestIndex, recordManifests } from '../manifest-index/index.js';
import { ToolCallApprover } from './approval.js';
import { callMcpToolTool } from './call-mcp-tool.js';
import { checkedExposure, chooseExposure } from './exposure.js';
import { loadMcpTool } from './load-mcp.js';
import { isToolEnabled } from './permissions.js';
import { readMcpResourceTool } from './read-mcp-resource.js';
import { DEFAULT_RESULT_BUDGET } from './results.js';
import { SearchableTools } from './searchable-tools.js';
import { explainUnoffered } from './unoffered-tool.js';
import { searchMcpToolsTool } from './search-mcp-tools.js';
import { buildServerCatalog } from './server-catalog.js';
import type { LoaderToolContext } from './tool-context.js';
import type { CreateLoaderToolsOptions, LoaderTool, LoaderToolName, LoaderTools, LoaderToolsManager } from './types.js';
import type { McpServerConfig } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import { unknownOptionError } from '../manager-options.js';
import { describeValue, isPlainObject } from '../../machines/request-shape.js';
import type { LoaderToolsSurface } from './surface.js';

const TOOL_FACTORIES: Record<LoaderToolName, (context: LoaderToolContext) => LoaderTool> = {
  load_mcp: loadMcpTool,
  call_mcp_tool: callMcpToolTool,
  read_mcp_resource: readMcpResourceTool,
  search_mcp_tools: searchMcpToolsTool,
};

/** Every key the loader tools read; `satisfies` keeps the list whole as options are added. */
const OPTION_KEYS = Object.keys({
  manager: true,
  servers: true,
  permissions: true,
  resultBudget: true,
  manifestIndex: true,
  search: true,
  exposure: true,
  serversNotice: true,
  skippedServers: true,
  approvalPolicy: true,
  approveToolCall: true,
  unaskedReason: true,
} satisfies Record<keyof CreateLoaderToolsOptions, true>);

/** A key not read would be ignored: a misspelt `permission` would leave every server allowed. */
function checkedOptions(options: CreateLoaderToolsOptions): CreateLoaderToolsOptions {
  const unknown = unknownOptionError('createLoaderTools', options, OPTION_KEYS, (key) =>
    key === 'mcpServers' ? 'the servers go in "servers" ({ manager, servers: mcpServers }); "mcpServers" would be ignored.' : undefined,
  );
  if (unknown) throw unknown;
  if (!isPlainObject(options.servers)) {
    throw new TypeError(`createLoaderTools: "servers" must be an object of server definitions by name (discoverMcpServers()'s servers, or a config file's mcpServers object), not ${describeValue(options.servers)}.`);
  }
  return options;
}

/**
 * Adds every allowed, enabled server to the manager (servers it already knew stay), records
 * their manifests in the index as they connect, and returns the permitted tools.
 *
 * @example
 * ```ts
 * import { createLoaderTools, discoverMcpServers, McpConnectionManager } from 'mcp-statechart';
 *
 * const { servers } = await discoverMcpServers();
 * const manager = new McpConnectionManager();
 * const tools = createLoaderTools({ manager, servers, permissions: { mcps: { deny: ['prod-*'] } } });
 * const loaded = await tools.find((tool) => tool.name === 'load_mcp')!.execute({ server: 'notes' });
 * console.log(loaded.text);
 * ```
 */
export function createLoaderTools(options: CreateLoaderToolsOptions): LoaderTools {
  return buildLoaderTools(options, { search: 'when-useful', surface: 'library' });
}

/**
 * The loader tools of `serve` over stdio: search_mcp_tools is offered over any index, even an
 * empty one. A host keeps the tool definitions of the session (and its prompt cache), while the
 * index fills as the host's model loads servers: offered only once the index held something,
 * search would never appear for a person who never ran `mcp-statechart index`. Connected servers
 * are searchable at once; what an empty index answers says how to get there.
 */
export function createServeLoaderTools(options: CreateLoaderToolsOptions): LoaderTools {
  return buildLoaderTools(options, { search: 'over-any-index', surface: 'serve' });
}

/**
 * The loader tools of one policy in `serve --http`: search_mcp_tools is offered over any index,
 * even an empty one. A gateway runs for long and builds each policy's tools when its first
 * request comes; its index fills as servers connect. Offered only once the index held something,
 * search would depend on which policy happened to ask first, and a policy's tools built again
 * (the gateway file changed) would change under a host that had them.
 */
export function createGatewayLoaderTools(options: CreateLoaderToolsOptions): LoaderTools {
  return buildLoaderTools(options, { search: 'over-any-index', surface: 'gateway' });
}

/** When search_mcp_tools is offered, and whose model the tools answer. */
interface LoaderToolsMode {
  search: 'when-useful' | 'over-any-index';
  surface: LoaderToolsSurface;
}

function buildLoaderTools(given: CreateLoaderToolsOptions, { search, surface }: LoaderToolsMode): LoaderTools {
  const options = checkedOptions(given);
  const exposure = checkedExposure(options.exposure);
  const catalog = buildServerCatalog(options.servers, options.permissions, options.serversNotice, options.skippedServers);
  // Servers the model may not use are never configured, so nothing can connect them by mistake.
  options.manager.configure(catalog.configs, undefined, 'merge');
  const index = options.manifestIndex === false ? undefined : (options.manifestIndex ?? new ManifestIndex());
  const unshared = options.manifestIndex === undefined ? serversWithCodeCredentials(options.manager, catalog.configs) : new Set<string>();
  if (index) recordManifests(options.manager, index, withoutNames(catalog.configs, unshared), { projectFiles: catalog.projectFiles });
  const searchable = index && new SearchableTools(options.manager, catalog, index, options.search, unshared);
  // Search is offered when it has something to rank: an index that holds manifests, or more
  // servers than load_mcp lists (search then finds them by name and description); in serve and a gateway, over any index.
  const searchUseful = index !== undefined && (search === 'over-any-index' || !index.isEmpty || !catalog.listed);
  const offered = (name: LoaderToolName) =>
    isToolEnabled(options.permissions, name) && (name !== 'search_mcp_tools' || searchUseful);
  const context: LoaderToolContext = {
    manager: options.manager,
    catalog,
    resultBudget: options.resultBudget ?? DEFAULT_RESULT_BUDGET,
    searchable,
    searchOffered: offered('search_mcp_tools'),
    approver: new ToolCallApprover(options),
    surface,
  };
  const loaderTools = (Object.keys(TOOL_FACTORIES) as LoaderToolName[]).filter(offered).map((name) => TOOL_FACTORIES[name](context));
  const call = loaderTools.find((tool) => tool.name === 'call_mcp_tool');
  const { tools, decision, unoffered } = chooseExposure(exposure, context, loaderTools, call);
  if (unoffered) explainUnoffered(tools, unoffered);
  // Not enumerable: the array still reads, spreads and serializes as the tools alone.
  return Object.defineProperty(tools, 'exposure', { value: decision, enumerable: false }) as LoaderTools;
}

/**
 * The servers the manager connects with credentials of the application's code (`oauth.providerFor`):
 * one definition, each user's own tools. The default index is shared by every manager of the home
 * folder, so these are neither recorded in it nor read from it; an index the application passes
 * (one per user) keeps them.
 */
function serversWithCodeCredentials(manager: LoaderToolsManager, configs: Record<string, McpServerConfig>): Set<string> {
  return new Set(Object.keys(configs).filter((name) => manager.credentialsFromCode?.(configs[name]!) === true));
}

function withoutNames(configs: Record<string, McpServerConfig>, names: ReadonlySet<string>): Record<string, McpServerConfig> {
  return names.size === 0 ? configs : nameRecord(Object.fromEntries(Object.entries(configs).filter(([name]) => !names.has(name))));
}

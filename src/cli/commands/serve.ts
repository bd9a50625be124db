import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnectionManagerOptions } from '../../manager.js';
import { isServerAllowed, toMcpToolResult } from '../../tools/index.js';
import { openLifecycleView } from '../lifecycle-view.js';
import { logLifecycle } from '../lifecycle-log.js';
import { cliLogger } from '../logger.js';
import { discover, permissionsFrom, type GlobalOptions } from '../options.js';
import { packageVersion } from '../package-root.js';
import { followServeConfig } from '../serve-config.js';
import { hostApproval } from '../serve-approval.js';
import { endServe, hostInput, whenServeEnds } from '../serve-lifecycle.js';
import { openLoaderSession } from '../session.js';
import type { DiscoveryResult } from '../../config/index.js';
import { hostRequestHandlers, installProxy, relayedCallOptions, relaySwitches, SERVE_CAPABILITIES } from '../../serve/proxy.js';
import { HostStdioTransport } from '../../serve/host-output.js';
import { capRelayedRequests } from '../../serve/relay-limits.js';

/**
 * `serve`: an MCP server over stdio whose tools are the loader tools, backed by the
 * registry, so an MCP host gets lazy loading of every configured server from one entry.
 * stdout carries the protocol; every log line goes to stderr. Resolves with the exit code once
 * serve has stopped (see serve-lifecycle.ts for when that is).
 */
export async function runServe(
  options: GlobalOptions,
  managerOptions: McpConnectionManagerOptions = {},
  { view = false, sampling = true }: { view?: boolean; sampling?: boolean } = {},
): Promise<number> {
  const logger = cliLogger(options.verbose);
  // stdin carries the protocol: nobody can be asked, only earlier approvals count.
  const discovery = await discover(options, logger, false);
  const server = new Server({ name: 'mcp-statechart', version: packageVersion() }, { capabilities: SERVE_CAPABILITIES });
  // Downstream servers' sampling, elicitation and roots requests go up to this host, a few per server at a time, unless the config or --no-sampling says not.
  const switches = relaySwitches(discovery.servers, { sampling });
  const { manager, tools, toolsFor } = openLoaderSession(
    discovery,
    options,
    logger,
    { handlers: capRelayedRequests(hostRequestHandlers(server, switches)), ...managerOptions },
    hostApproval(server, options.approve),
  );
  if (options.verbose) logLifecycle(manager, (line) => process.stderr.write(`${line}\n`));
  const lifecycleView = view ? await openLifecycleView(manager, false) : undefined;
  const permissions = permissionsFrom(options);
  installProxy(server, manager, { isAllowed: (name) => isServerAllowed(permissions, name), logger });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) {
      return {
        isError: true,
        content: [{ type: 'text', text: `Unknown tool "${request.params.name}". Tools: ${tools.map((t) => t.name).join(', ')}.` }],
      };
    }
    return toMcpToolResult(await tool.execute(request.params.arguments ?? {}, relayedCallOptions(request, extra)));
  });

  const followed = (result: DiscoveryResult) => (switches.follow(result.servers), toolsFor(result));
  const config = await followServeConfig({ options, server, manager, tools, toolsFor: followed, discovery, logger });
  const stop = async () => {
    await config.close();
    await manager.dispose();
    await server.close();
    await lifecycleView?.close();
  };
  const input = hostInput();
  const ended = whenServeEnds(server, input);
  await server.connect(new HostStdioTransport(input));
  logger.info(`serving ${tools.map((tool) => tool.name).join(', ')} over stdio for ${Object.keys(discovery.servers).length} configured servers`);
  return endServe(await ended, stop, logger);
}

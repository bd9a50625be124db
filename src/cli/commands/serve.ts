import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { McpConnectionManagerOptions } from '../../manager.js';
import { isServerAllowed, toMcpToolResult, type LoaderToolCallOptions } from '../../tools/index.js';
import { listedTool, unknownLoaderTool } from '../../serve/listed-tool.js';
import { openLifecycleView } from '../lifecycle-view.js';
import { logLifecycle } from '../lifecycle-log.js';
import { warnWhenServersGiveUp } from '../given-up-log.js';
import { servingLogger } from '../logger.js';
import { discover, permissionsFrom, type GlobalOptions } from '../options.js';
import { packageVersion } from '../package-root.js';
import { followServeConfig, replaceTools } from '../serve-config.js';
import { hostApproval } from '../serve-approval.js';
import { endServe, hostInput, whenServeEnds } from '../serve-lifecycle.js';
import { openLoaderSession } from '../session.js';
import { createServeLoaderTools } from '../../tools/create-loader-tools.js';
import { unreadConfigLine } from '../unread-config.js';
import type { DiscoveryResult } from '../../config/index.js';
import { hostRequestHandlers, installProxy, relayedCallOptions, relaySwitches, SERVE_CAPABILITIES } from '../../serve/proxy.js';
import { ServeHost } from '../../serve/host.js';
import { readableLines, type UnreadableLine } from '../../serve/host-lines.js';
import { HostStdioTransport } from '../../serve/host-output.js';
import { capRelayedRequests } from '../../serve/relay-limits.js';
import { shutdownCallResult } from '../../serve/shutting-down.js';
import { instrumentHostTransport } from '../../telemetry/server-telemetry.js';
import { startOrphanReaper } from '../../transports/orphan-reaper.js';

/**
 * `serve`: an MCP server over stdio whose tools are the loader tools, backed by the
 * registry, so an MCP host gets lazy loading of every configured server from one entry.
 * stdout carries the protocol; every log line goes to stderr. Resolves with the exit code once
 * serve has stopped (see serve-lifecycle.ts for when that is).
 */
export const SERVE_ON_TERMINAL = [
  'mcp-statechart serve is an MCP server: it waits for a host (Claude Desktop, Claude Code, an IDE) to talk to it on stdin.',
  'Add it to a host instead of running it here, e.g.:',
  '  claude mcp add statechart -- mcp-statechart serve',
  '  or in claude_desktop_config.json: "mcpServers": { "statechart": { "command": "mcp-statechart", "args": ["serve"] } }',
  'Press Ctrl-C to stop.',
].join('\n');

export async function runServe(
  options: GlobalOptions,
  managerOptions: McpConnectionManagerOptions = {},
  { view = false, sampling = true }: { view?: boolean; sampling?: boolean } = {},
): Promise<number> {
  const logger = servingLogger(options.verbose);
  // A person who typed `serve` sees a silent command otherwise: it speaks MCP on stdin/stdout.
  if (process.stdin.isTTY) process.stderr.write(`${SERVE_ON_TERMINAL}\n`);
  // stdin carries the protocol: nobody can be asked, only earlier approvals count.
  const discovery = await discover(options, logger, false);
  // A SIGKILL of this process must not leave servers that ignore stdin's end running (see orphan-reaper.ts).
  const reaper = startOrphanReaper();
  const unread = unreadConfigLine(discovery);
  if (unread !== undefined) logger.error(unread);
  // One instance per host connection, built for the era the host opens with (see ServeHost).
  const host = new ServeHost({ name: 'mcp-statechart', version: packageVersion() }, SERVE_CAPABILITIES);
  // Downstream servers' sampling, elicitation and roots requests go up to this host, a few per server at a time, unless the config or --no-sampling says not.
  const switches = relaySwitches(discovery.servers, { sampling });
  const handlers = capRelayedRequests(hostRequestHandlers(host, switches));
  const { manager, tools, toolsFor } = openLoaderSession(
    discovery,
    options,
    logger,
    { handlers, ...managerOptions },
    { ...hostApproval(host, options.approve), create: createServeLoaderTools },
  );
  if (options.verbose) logLifecycle(manager, (line) => process.stderr.write(`${line}\n`));
  warnWhenServersGiveUp(manager, logger);
  const lifecycleView = view ? await openLifecycleView(manager, false, discovery.servers) : undefined;
  const permissions = permissionsFrom(options);
  installProxy(host, manager, { isAllowed: (name) => isServerAllowed(permissions, name), logger, roots: handlers.roots ?? [] });

  // Set once serve stops: a call the stop cuts off fails, and the host is told why.
  let stopping = false;
  host.onInstance((server, era) => {
    server.setRequestHandler('tools/list', async () => ({
      tools: tools.map(listedTool),
    }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const args = request.params.arguments ?? {};
      // Found when the call runs: a 2026-07-28 host's first call may bring the project (and its tools) first.
      const run = async (options: LoaderToolCallOptions) => {
        const tool = tools.find((candidate) => candidate.name === request.params.name);
        if (!tool) return unknownLoaderTool(request.params.name, tools);
        return shutdownCallResult(toMcpToolResult(await tool.execute(args, options)), stopping);
      };
      // A 2026-07-28 host is asked for input (its roots, approval, relayed requests) on this call itself: see HostInputRounds.
      if (era === 'modern') {
        host.heard(ctx);
        const server = typeof args.server === 'string' ? args.server : undefined;
        return host.rounds.run(
          request,
          ctx,
          async (options) => {
            await host.rootsBeforeFirstCall(options.signal);
            return run(options);
          },
          { server },
        );
      }
      return run(relayedCallOptions(request, ctx));
    });
  });

  const followed = (result: DiscoveryResult) => (switches.follow(result.servers), toolsFor(result));
  const config = await followServeConfig({ options, host, manager, reconfigure: replaceTools(host, tools, followed, logger), discovery, logger });
  const refuse = (line: UnreadableLine) => {
    if (line.answer) transport.output.send(line.answer);
    if (line.answerTo !== undefined) transport.answerTooLarge(line.answerTo);
    logger.warn(line.logLine);
  };
  const input = hostInput(process.stdin, refuse);
  const readable = readableLines(input, refuse);
  input.holding(readable);
  const transport = new HostStdioTransport(readable);
  const { ended, onerror } = whenServeEnds(transport, input);
  // On each instance's own channel, once connected: the hook sees each request enter its handler and its answer leave.
  host.onConnected((instanceTransport) => instrumentHostTransport(instanceTransport, 'pipe', { isServedTool: (name) => tools.some((tool) => tool.name === name) }));
  const connection = serveStdio(host.factory, { transport, onerror });
  const stop = async () => {
    stopping = true;
    await config.close();
    await manager.dispose();
    reaper.close();
    await connection.close();
    await lifecycleView?.close();
  };
  logger.info(`serving ${tools.map((tool) => tool.name).join(', ')} over stdio for ${Object.keys(discovery.servers).length} configured servers`);
  return endServe(await ended, stop, logger);
}

/**
 * `serve --http [host:]port`: the loader over Streamable HTTP at `/mcp`, for a team: both
 * protocol eras, any request on any replica (see src/gateway/mcp-endpoint.ts), inbound auth and
 * policy per identity from `--gateway <file>`, an audit line per call (`--audit`), `/healthz`,
 * `/readyz`, and SIGTERM draining; the MCP config and the gateway file are followed while it
 * runs. Loopback unless a gateway file says who may call.
 */
import { randomBytes } from 'node:crypto';
import type { McpConnectionManagerOptions } from '../../manager.js';
import { McpConnectionManager } from '../../manager.js';
import type { DiscoveryResult } from '../../config/index.js';
import { openAuditLog, type AuditLog } from '../../gateway/audit-log.js';
import { createAuthenticator } from '../../gateway/authenticate.js';
import { createAccessResolver, type ToolsForPolicy } from '../../gateway/caller-access.js';
import { startHealthListener } from '../../gateway/health-listener.js';
import { BODY_TIMEOUT_MS, createGatewayServer } from '../../gateway/http-gateway.js';
import { createMcpEndpoint } from '../../gateway/mcp-endpoint.js';
import { IdentityAllowance } from '../../gateway/identity-allowance.js';
import { RateLimiter } from '../../gateway/rate-limit.js';
import { isLoopbackAddress } from '../../gateway/request-origin.js';
import { loadSessionKeys, parseSessionKeys } from '../../gateway/sealed-session.js';
import { watchGatewayFile, type GatewayFileWatcher } from '../../gateway/watch-gateway-file.js';
import type { GatewayConfig } from '../../gateway/gateway-file.js';
import { withdrawnIdentities } from '../../gateway/withdrawn-identities.js';
import { MAX_MESSAGE_BYTES } from '../../transports/message-size.js';
import { HttpHostRelay } from '../../serve/http-host-relay.js';
import { httpInstanceFactory } from '../../serve/http-instance.js';
import { hostRequestHandlers, relaySwitches } from '../../serve/proxy.js';
import { capRelayedRequests } from '../../serve/relay-limits.js';
import { relayLogsOverHttp } from '../../serve/host-logging.js';
import { hostApproval } from '../serve-approval.js';
import { instrumentHostTransport } from '../../telemetry/server-telemetry.js';
import { promptsAndResourcesOffer } from '../../serve/prompts-and-resources.js';
import type { ApprovalPolicy } from '../../tools/approval.js';
import { compilePermissions } from '../../tools/permissions.js';
import type { LoaderPermissions } from '../../tools/index.js';
import { createGatewayLoaderTools } from '../../tools/create-loader-tools.js';
import { parseListenAddress } from '../listen-address.js';
import { followServeConfig, servedServers } from '../serve-config.js';
import { logLifecycle } from '../lifecycle-log.js';
import { warnWhenServersGiveUp } from '../given-up-log.js';
import { STOP_SIGNALS } from '../serve-lifecycle.js';
import { servingLogger } from '../logger.js';
import { PrivateLists } from '../../gateway/private-lists.js';
import { discover, permissionsFrom, type GlobalOptions } from '../options.js';
import { packageVersion } from '../package-root.js';
import { startOrphanReaper } from '../../transports/orphan-reaper.js';

export interface ServeHttpFlags {
  /** `[host:]port`. */
  http: string;
  gateway?: string;
  audit?: string;
  sessionKeyFile?: string;
  /** `[host:]port` of a listener of its own for /healthz and /readyz (answered off the calls' event loop). */
  health?: string;
}

/** How long SIGTERM lets calls in flight finish before closing the servers anyway. */
export const DRAIN_LIMIT_MS = 25_000;
/** How long SIGTERM fails /readyz while still serving, so a balancer polling it every second or two stops sending here first. */
export const READINESS_GRACE_MS = 3_000;

const STRICTNESS: readonly ApprovalPolicy[] = ['never', 'destructive', 'always'];

/** The identity's permissions inside serve's own: serve's server rules are applied by leaving servers out; tool denies add up. */
function within(base: LoaderPermissions, own: LoaderPermissions): LoaderPermissions {
  const deny = [...(base.mcpTools?.deny ?? []), ...(own.mcpTools?.deny ?? [])];
  const allow = own.mcpTools?.allow ?? base.mcpTools?.allow;
  return {
    ...(base.tools && { tools: base.tools }),
    ...(own.mcps && { mcps: own.mcps }),
    mcpTools: { ...(allow && { allow }), ...(deny.length > 0 && { deny }) },
  };
}

export async function runServeHttp(options: GlobalOptions, flags: ServeHttpFlags, managerOptions: McpConnectionManagerOptions = {}): Promise<number> {
  const logger = servingLogger(options.verbose);
  const address = parseListenAddress(flags.http, '--http', '8808');
  const healthAddress = flags.health === undefined ? undefined : parseListenAddress(flags.health, '--health', '8809');
  const loopbackOnly = isLoopbackAddress(address.host);
  if (!loopbackOnly && flags.gateway === undefined) {
    logger.error(`serve --http refuses to listen on ${address.host} without inbound auth: give --gateway <file> (who may call, with which token), or listen on 127.0.0.1`);
    return 1;
  }
  // Downstream servers' sampling, elicitation and roots requests go up to the host of the call they belong to (see HttpHostRelay),
  // but a 2025-era server's roots, kept for its connection whoever calls, are none (see HostRequestOptions).
  const relay = new HttpHostRelay();
  // Set once the endpoint exists: no stream is open before.
  let listens: ListenStreams = { owners: () => [], withdraw: () => {} };
  const gateway: GatewayFileWatcher | undefined =
    flags.gateway === undefined
      ? undefined
      : await watchGatewayFile(flags.gateway, { logger, onChange: withdrawCallsOf(relay, { owners: () => listens.owners(), withdraw: (names, reason) => listens.withdraw(names, reason) }) });
  const keys = flags.sessionKeyFile ? await loadSessionKeys(flags.sessionKeyFile) : parseSessionKeys(randomBytes(32).toString('base64'));
  const audit: AuditLog | undefined = flags.audit === undefined ? undefined : openAuditLog(flags.audit, { logger });

  // Nobody is asked about project servers on this transport: only earlier approvals count.
  const discovery = await discover(options, logger, false);
  const switches = relaySwitches(discovery.servers, { sampling: true });
  // A SIGKILL of this process must not leave servers that ignore stdin's end running (see orphan-reaper.ts).
  const reaper = startOrphanReaper();
  const manager = new McpConnectionManager({ logger, handlers: capRelayedRequests(hostRequestHandlers(relay, switches, { sharedServers: true })), ...managerOptions });
  // Configured (not connected) from the start, so /healthz and mcp_statechart.servers count them as disconnected before
  // the first request builds a policy's tools; the set a config change configures (followServeConfig).
  manager.configure(servedServers(discovery, permissionsFrom(options)));
  if (options.verbose) logLifecycle(manager, (line) => process.stderr.write(`${line}\n`));
  warnWhenServersGiveUp(manager, logger);
  // Their log messages go up by the same rule: to the calls in flight to that server while they are one identity's.
  const stopLogs = relayLogsOverHttp(relay, manager, logger);
  // A list a server calls private is read for each identity, never served from another's reading.
  const privateLists = new PrivateLists(manager, logger);
  const toolsForDiscovery = (result: DiscoveryResult): ToolsForPolicy => {
    const base = permissionsFrom(options, result.toolPermissions);
    const serves = compilePermissions(base);
    return (own, approve) => {
      // An identity is not told of servers it may not use (not even that they exist): they are left out, not refused.
      const its = own && compilePermissions(own);
      const servers = its ? Object.fromEntries(Object.entries(result.servers).filter(([name]) => serves.allowsServer(name) && its.allowsServer(name))) : result.servers;
      const policies = [options.approve ?? 'never', approve ?? 'never'];
      const strictest = policies.reduce((a, b) => (STRICTNESS.indexOf(b) > STRICTNESS.indexOf(a) ? b : a));
      return createGatewayLoaderTools({
        manager: privateLists.manager,
        servers,
        permissions: own ? within(base, own) : base,
        // Decided for each policy over the tools it may see, once: its definitions stay the same from then on.
        exposure: options.exposure,
        // The caller's host is shown the form on its own call; a host that cannot show one is refused.
        ...hostApproval(relay, strictest, { remembers: false, gateway: true }),
      });
    };
  };
  const resolver = createAccessResolver(() => gateway?.current(), permissionsFrom(options, discovery.toolPermissions), toolsForDiscovery(discovery));

  let notifyListsChanged = (_server: string) => {};
  const offer = promptsAndResourcesOffer(manager, () => true, (server) => notifyListsChanged(server), 'gateway');
  const info = { name: 'mcp-statechart', version: packageVersion() };
  const endpoint = createMcpEndpoint({
    factory: httpInstanceFactory({
      info,
      accessFor: ({ identity }) => resolver.accessFor(identity),
      offer,
      rateLimiter: new RateLimiter(),
      callsInFlight: new IdentityAllowance(),
      audit,
      relay,
      privateLists,
      onConnected: (transport, served) => instrumentHostTransport(transport, 'tcp', served),
    }),
    keys,
    answers: (identity, message) => relay.answer(identity.name, message),
    cancels: (identity, sessionId, message) => relay.cancel(identity.name, sessionId, message),
    maxBodyBytes: MAX_MESSAGE_BYTES,
    onerror: (error) => logger.debug(`serve --http: ${error.message}`),
  });
  // Only to the identities that may see the server: to the others it would say the server exists, and when it is used.
  listens = { owners: () => endpoint.listening(), withdraw: (names, reason) => endpoint.withdraw(names, reason) };
  notifyListsChanged = (server) => endpoint.notify.listsChanged((identity) => resolver.allowsServer(identity, server));
  // The MCP config is followed as stdio serve follows it (added servers wait for a person's `approve`):
  // requests from now on get tools over the new set; calls in flight keep the tools they started with.
  const config = await followServeConfig({
    options,
    manager,
    discovery,
    logger,
    reconfigure: (result) => {
      switches.follow(result.servers);
      resolver.follow(toolsForDiscovery(result));
      endpoint.notify.toolsChanged();
    },
  });
  const server = createGatewayServer({
    endpoint,
    authenticate: gateway && createAuthenticator(() => gateway.current()),
    oauth: () => gateway?.current().oauth,
    loopbackOnly,
    maxBodyBytes: MAX_MESSAGE_BYTES,
    listenStreamsFor: (identity) => resolver.accessFor(identity).listenStreams,
    slowReaderSecondsFor: (identity) => resolver.accessFor(identity).slowReaderSeconds,
    requestBytesFor: (identity) => resolver.accessFor(identity).requestBytesInFlight,
    bodyTimeoutMs: BODY_TIMEOUT_MS,
    health: () => health(manager),
    ...(gateway && { anonymousHealth: () => healthCounts(manager) }),
    logger,
  });
  let healthListener: Awaited<ReturnType<typeof startHealthListener>> | undefined;
  const stopAll = async () => {
    await healthListener?.close();
    offer.stop();
    stopLogs();
    await config.close();
    privateLists.stop();
    await endpoint.close();
    await gateway?.close();
    await manager.dispose();
    reaper.close();
    await audit?.close();
  };
  let bound: { host: string; port: number };
  try {
    // Before the main listener's line, which is what a script waits for.
    healthListener = healthAddress && (await startHealthListener(healthAddress, () => ({ health: server.health(), draining: server.draining })));
    if (healthListener) process.stderr.write(`mcp-statechart serve: health on http://${urlHost(healthListener.host)}:${healthListener.port}/readyz\n`);
    bound = await server.listen(address.host, address.port).catch((error: Error) => {
      throw new Error(`--http could not listen on ${address.host}:${address.port}: ${error.message}. Stop what uses that port, or give --http another one.`);
    });
  } catch (error) {
    // The config watchers, the servers and the health thread would keep a replica that serves nothing running.
    await stopAll();
    throw error;
  }
  // The address is the one line a script waits for (port 0 picks a free port).
  process.stderr.write(`mcp-statechart serve: listening on http://${urlHost(bound.host)}:${bound.port}/mcp\n`);
  logger.info(`serving the loader tools over HTTP for ${Object.keys(discovery.servers).length} configured servers${gateway ? ', with inbound auth' : ', loopback only, no inbound auth'}`);

  const signal = await new Promise<NodeJS.Signals>((done) => {
    for (const stop of STOP_SIGNALS) process.once(stop, () => done(stop));
  });
  logger.info(`serve --http: ${signal}: draining (${server.inFlight} requests in flight)`);
  const draining = server.drain(READINESS_GRACE_MS, DRAIN_LIMIT_MS);
  // The health listener's /readyz fails now, not at its next beat.
  healthListener?.beat();
  const drained = await draining;
  if (!drained) logger.error(`serve --http: requests still in flight after ${DRAIN_LIMIT_MS} ms were cut off`);
  await stopAll();
  return 0;
}

/** The endpoint's open `subscriptions/listen` streams: the identities that opened them, and ending theirs. */
interface ListenStreams {
  owners(): Iterable<string>;
  withdraw(names: ReadonlySet<string>, reason: string): void;
}

/**
 * On each new version of the gateway file: the calls of an identity it no longer lets in (its token, or the JWTs of its `oauth`, gone)
 * are stopped, running or waiting, and its listen streams end.
 */
export function withdrawCallsOf(relay: HttpHostRelay, listens: ListenStreams): (config: GatewayConfig, previous: GatewayConfig) => void {
  return (config, previous) => {
    // An OAuth identity is known only by what it has open: a listen stream without a call in flight counts too.
    const withdrawn = withdrawnIdentities(previous, config, [...relay.owners(), ...listens.owners()]);
    if (withdrawn.size === 0) return;
    const reason = 'your access was withdrawn: the gateway file no longer lets you in (your bearer token, or the issuer of your OAuth token, was taken out of it), so mcp-statechart serve stopped this call';
    listens.withdraw(withdrawn, reason);
    relay.withdraw(withdrawn, reason);
  };
}

const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** `/healthz` on the calls' port with inbound auth, answered to anyone: how many servers are in each state, naming none. */
function healthCounts(manager: McpConnectionManager): { status: 'ok'; serverCounts: Record<string, number> } {
  const serverCounts: Record<string, number> = {};
  for (const name of manager.serverNames) serverCounts[manager.getState(name)] = (serverCounts[manager.getState(name)] ?? 0) + 1;
  return { status: 'ok', serverCounts };
}

/** `/healthz`: the replica's servers by state (names only). */
function health(manager: McpConnectionManager): { status: 'ok'; servers: Record<string, string[]> } {
  const servers: Record<string, string[]> = {};
  for (const name of manager.serverNames) (servers[manager.getState(name)] ??= []).push(name);
  return { status: 'ok', servers };
}

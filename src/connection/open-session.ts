import type { Readable } from 'node:stream';
import type { AnyActorRef } from 'xstate';
import { Client, ProtocolError, SdkHttpError, SseError, type ClientOptions, type PriorDiscovery, type Transport, type VersionNegotiationMode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { inferTransport, missingTransportProblem, type ResolvedConnectOptions } from '../../machines/options.js';
import type { McpProtocolPreference, McpServerConfig, McpTransportKind } from '../../machines/types.js';
import type { Logger } from '../logger.js';
import { limitMessageDepth, refusedHandshake } from './message-depth-limit.js';
import { limitLogFlood } from './log-flood-limit.js';
import { refuseInitializeAfterForeignOffer } from './discover-offer.js';
import { createHttpTransport, retryAfterOf, shouldFallBackToSse, type HttpAuth } from '../transports/http.js';
import { StderrTail } from '../transports/stderr-tail.js';
import { createStdioTransport, processGroupOf, ProcessGroupStdioTransport, StdoutClosedError, type ProcessExit } from '../transports/stdio.js';
import { ConfigInvalidError } from '../errors/config-invalid.js';
import { assertUsableEntry } from './option-problems.js';
import { ExitedAtStartError } from '../errors/exited-at-start.js';
import { connectFailure, isConfigError, unsupportedVersionIn, unwrapUnreachableProbe } from './errors.js';
import { Deadline } from './deadline.js';
import { listManifest } from './manifest.js';
import { secretsOf } from '../redact.js';
import { unsealServerConfig } from '../sealed-config.js';
import { warnOfUnexpandedVariables } from './unexpanded-variables.js';
import type { VariableSource } from '../config/expand-variables.js';
import { Session } from './session.js';
import type { SessionTracker } from './session-tracker.js';
import type { HostBridge } from './host-handlers.js';
import { initializeAnswerRefused, MODERN_REVISION, probeStdioEra, versionsApart } from './era-probe.js';
import type { TaskJournal } from './task-journal.js';
import type { EraMemo } from './era-memo.js';
import type { ClientTelemetry } from '../telemetry/client-telemetry.js';
import type { LifecycleTelemetry } from '../telemetry/lifecycle-telemetry.js';
import { TASKS_EXTENSION } from './task-wire.js';
import { quoted, terminalLine } from '../../machines/control-characters.js';

/** The connect timeout's advice to a library user; the command line, whose `--timeout` sets it, words its own. */
export const CONNECT_TIMEOUT_ADVICE = ' (connectTimeoutMs); give a server slow to start a larger connectTimeoutMs';

/**
 * At most this many rounds of a 2026-07-28 multi round-trip request (an `input_required` answer
 * fulfilled by the host handlers, then the request again) before it fails.
 */
export const MAX_INPUT_ROUNDS = 8;

const NEGOTIATION: Record<McpProtocolPreference, VersionNegotiationMode> = {
  auto: 'auto',
  modern: { pin: MODERN_REVISION },
  legacy: 'legacy',
};

/** How a server's Client is built: both eras negotiated, unless its entry pins one (`protocol`). */
export function clientOptions(config: McpServerConfig): ClientOptions {
  return {
    // A 2026-07-28 server may then answer a tool call with a task (session.ts follows it to its end).
    capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    versionNegotiation: { mode: NEGOTIATION[config.protocol ?? 'auto'] },
    inputRequired: { maxRounds: MAX_INPUT_ROUNDS },
  };
}

/**
 * Builds a server's OAuth wiring for one connect attempt (src/auth/http-auth.ts); `undefined`: no
 * OAuth for it. `onRefreshed`: told when this connection's access token was refreshed without the user.
 */
export type HttpAuthFactory = (server: { name: string; config: McpServerConfig; onRefreshed?: () => void }) => HttpAuth | undefined;

export interface ServerSpec {
  name: string;
  config: McpServerConfig;
  /** The transport to build; `sse` also when an `http` server fell back to SSE. */
  transport: McpTransportKind;
  /** OAuth for an http/sse server (the manager's `oauth` option); pass it to the transport. */
  auth?: HttpAuth;
}

/** Builds the transport for a server. The default builds the SDK's stdio, Streamable HTTP or SSE transport. */
export type TransportFactory = (server: ServerSpec) => Transport;

/** The SDK's stdio transport (in its own process group, stderr piped), Streamable HTTP or SSE. */
export const defaultTransportFactory: TransportFactory = ({ name, config, transport, auth }) =>
  transport === 'stdio' ? createStdioTransport(name, config) : createHttpTransport(name, config, transport, auth);
/** Builds the SDK Client for a server. */
export type ClientFactory = (server: ServerSpec) => Client;

export interface ConnectionDeps {
  transportFactory?: TransportFactory;
  clientFactory?: ClientFactory;
  logger: Logger;
  tracker: SessionTracker;
  clientInfo: { name: string; version: string };
  /** Builds each http/sse server's OAuth provider, per attempt. */
  authFactory?: HttpAuthFactory;
  /** Sampling, elicitation, roots and logging for every client: capabilities and handlers. */
  host?: HostBridge;
  /** Where a definition restored from a snapshot reads its `${VAR}`s again. Default: process.env, read at each connect. */
  variables?: VariableSource;
  /** The era each server spoke last time: a reconnect does not probe again. */
  eras?: EraMemo;
  /** Where the tasks of 2026-07-28 servers are recorded while in flight. */
  journal?: TaskJournal;
  /** OpenTelemetry spans and metrics for every request (src/telemetry/client-telemetry.ts). */
  telemetry?: ClientTelemetry;
  /** The connection's lifecycle as spans and metrics (src/telemetry/lifecycle-telemetry.ts). */
  lifecycle?: LifecycleTelemetry;
}

export interface OpenSessionRequest {
  name: string;
  /** The server actor the session is for: the tracker keeps it by this, two registries may each run a server of this name. */
  owner: AnyActorRef;
  /** The server's sealed definition, as the chart holds it (src/sealed-config.ts); the transport gets the config it stands for. */
  config: McpServerConfig;
  options: ResolvedConnectOptions;
  signal: AbortSignal;
  /** Called once the era is settled and the session open on it (before the lists). */
  onNegotiated?: (protocolVersion: string | undefined, era: string | undefined) => void;
  /** Called when this connection's OAuth access token was refreshed without the user (handed to the auth factory). */
  onOAuthRefreshed?: () => void;
}

/**
 * One connect attempt: a new transport and a new Client (the SDK's transports cannot be
 * restarted, and a kept session id would skip `initialize`), `initialize`, then the declared
 * lists, all of it within `connectTimeoutMs`. An `http` server whose first POST gets
 * 400/404/405 is tried once more over SSE, within the same time. Whatever fails or is aborted
 * is closed.
 */
export async function openSession(sealedRequest: OpenSessionRequest, deps: ConnectionDeps): Promise<Session> {
  const classify = sealedRequest.options.isConfigError ?? isConfigError;
  const transport = inferTransport(sealedRequest.config);
  const diagnostics: AttemptDiagnostics = { stderrTail: '' };
  // The sealed definition's own secrets; those of the config it stands for once that is known.
  let secrets = secretsOf(sealedRequest.config);
  const { connectTimeoutMs } = sealedRequest.options;
  // Until a handshake request is sent (a process still starting, a remembered 2026-07-28 era
  // that asks nothing), the one its entry's era starts with.
  const waitingOn: HandshakeWait = { handshake: firstHandshake(sealedRequest.config) };
  const deadline = new Deadline(
    connectTimeoutMs,
    () =>
      new Error(
        `timed out: ${waitedFor(waitingOn)} did not finish within ${connectTimeoutMs} ms${CONNECT_TIMEOUT_ADVICE}`,
      ),
    sealedRequest.signal,
  );
  try {
    assertUsableEntry(sealedRequest.name, sealedRequest.config, sealedRequest.options);
    if (!transport) {
      const { field, problem } = missingTransportProblem(sealedRequest.config);
      throw new ConfigInvalidError(sealedRequest.name, field, problem);
    }
    // The only place the config's secret values are taken out (src/sealed-config.ts).
    const request = { ...sealedRequest, config: unsealServerConfig(sealedRequest.name, sealedRequest.config, deps.variables ?? process.env) };
    warnOfUnexpandedVariables(request.name, request.config, deps.logger);
    secrets = secretsOf(request.config);
    const scope: AttemptScope = { diagnostics, secrets, deadline, eraRefused: false, waitingOn };
    try {
      return await attemptOnKnownEra(request, transport, deps, scope);
    } catch (error) {
      // A refused revision is the server's own answer, not a sign of the wrong transport: SSE would only hide it.
      const refusal = unsupportedVersionIn(error);
      if (refusal) throw versionsApart(refusal);
      const initializeRefusal = initializeAnswerRefused(error);
      if (initializeRefusal) throw initializeRefusal;
      if (transport !== 'http' || !shouldFallBackToSse(error) || deadline.signal.aborted) throw error;
      deps.logger.info(`MCP server ${quoted(request.name)} refused Streamable HTTP; trying the SSE transport.`);
      return await attemptOnKnownEra(request, 'sse', deps, scope).catch((sseError: unknown) => {
        // A 400 is about the request: the POST's answer says what was wrong, the SSE GET's says nothing.
        throw isBadRequest(error) && sseError instanceof SseError && sseError.code === 400 ? error : sseError;
      });
    }
  } catch (error) {
    const timedOut = !sealedRequest.signal.aborted && deadline.signal.aborted;
    const cause = sealedRequest.signal.aborted
      ? abortReason(sealedRequest.signal)
      : timedOut
        ? deadline.signal.reason
        : withOwnEnd(unwrapUnreachableProbe(error), diagnostics, classify);
    throw connectFailure(sealedRequest.name, cause, classify, diagnostics.stderrTail, secrets, timedOut);
  } finally {
    deadline.dispose();
  }
}

/** What the last attempt left to explain its failure. */
interface AttemptDiagnostics {
  stderrTail: string;
  /** How a stdio server's process ended, when it ended by itself before the attempt failed. */
  exit?: ProcessExit;
  /** A stdio server closed its stdout and ran on, so the transport ended it, before the attempt failed. */
  stdoutClosed?: boolean;
}

/**
 * A connect that failed because the server's process ended the connection ("Connection closed")
 * fails with how: its exit (its code or signal says what went wrong), or its stdout closed while it
 * ran on, as a connected server's loss says. A refusal the server answered first (an error answer,
 * a config error) says more than the end that followed it, and stays.
 */
function withOwnEnd(error: unknown, { exit, stdoutClosed }: AttemptDiagnostics, classify: (error: unknown) => boolean): unknown {
  if ((!exit && !stdoutClosed) || error instanceof ProtocolError || classify(error)) return error;
  return exit ? new ExitedAtStartError(exit.code, exit.signal, { cause: error }) : new StdoutClosedError({ cause: error });
}

interface AttemptScope {
  diagnostics: AttemptDiagnostics;
  secrets: readonly string[];
  /** The whole connect's time: initialize and every page of every list. */
  deadline: Deadline;
  /** Set when the server refused the era it was remembered to speak (here or in the manifest index). */
  eraRefused: boolean;
  waitingOn: HandshakeWait;
}

/**
 * The handshake request a connect's timeout names: the era it was waiting on. `resumed`: a
 * remembered 2026-07-28 era, on which the connect sends no handshake and starts with the lists.
 */
interface HandshakeWait {
  handshake: 'server/discover' | 'initialize' | 'resumed';
}

function firstHandshake(config: McpServerConfig): HandshakeWait['handshake'] {
  return config.protocol === 'legacy' ? 'initialize' : 'server/discover';
}

function waitedFor({ handshake }: HandshakeWait): string {
  return handshake === 'resumed' ? 'listing on the remembered 2026-07-28 era (no handshake sent)' : `${handshake} and listing`;
}

/** Keeps `waitingOn` at the last handshake request sent on `transport`, the era probe's included. */
function followHandshake(transport: Transport, waitingOn: HandshakeWait): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && (message.method === 'server/discover' || message.method === 'initialize')) waitingOn.handshake = message.method;
    return send(message, options);
  };
}

/**
 * An attempt on the era the server spoke last time; when the server refuses it (it moved to
 * another SDK, another version), that era is forgotten and the attempt made once more, probing,
 * within the same time.
 */
async function attemptOnKnownEra(request: OpenSessionRequest, kind: McpTransportKind, deps: ConnectionDeps, scope: AttemptScope): Promise<Session> {
  scope.eraRefused = false;
  try {
    return await attempt(request, kind, deps, scope);
  } catch (error) {
    if (!scope.eraRefused || scope.deadline.signal.aborted) throw error;
    deps.logger.info(`MCP server ${quoted(request.name)} refused the protocol era it spoke last time; asking it again.`);
    scope.eraRefused = false;
    return await attempt(request, kind, deps, scope);
  }
}

/**
 * Our stdio transport is not the SDK's, so the SDK would probe in place and, for a legacy server,
 * go on with `initialize` on a process that already got a request (some exit on it): the probe is
 * made here instead, on the session's transport, which keeps the process only for a modern server.
 */
function probeStdio(request: OpenSessionRequest, deps: ConnectionDeps, transport: ProcessGroupStdioTransport, deadline: Deadline): Promise<PriorDiscovery> {
  return probeStdioEra({
    name: request.name,
    transport,
    clientInfo: deps.clientInfo,
    capabilities: deps.host?.capabilities(request.name) ?? {},
    deadline,
  });
}

/** What the connect found out, in the form the next connect can start from. */
function eraOf(client: Client): PriorDiscovery {
  const discover = client.getDiscoverResult();
  return client.getProtocolEra() === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
}

function isBadRequest(error: unknown): boolean {
  return error instanceof SdkHttpError && error.status === 400;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the connect was cancelled');
}

async function attempt(
  request: OpenSessionRequest,
  kind: McpTransportKind,
  deps: ConnectionDeps,
  scope: AttemptScope,
): Promise<Session> {
  const { diagnostics, secrets, deadline } = scope;
  const auth = kind === 'stdio' ? undefined : deps.authFactory?.({ name: request.name, config: request.config, onRefreshed: request.onOAuthRefreshed });
  const spec: ServerSpec = { name: request.name, config: request.config, transport: kind, auth };
  const transport = (deps.transportFactory ?? defaultTransportFactory)(spec);
  const stderr =
    // The SDK's own transport too, when an embedder's factory returns one.
    transport instanceof ProcessGroupStdioTransport || transport instanceof StdioClientTransport
      ? new StderrTail(transport.stderr as Readable | null, secrets, 50, (line) => deps.logger.debug(`[${terminalLine(request.name)} stderr] ${line}`))
      : undefined;
  // First, so that it counts each message as it is read (the depth limit may hold some back a moment).
  limitLogFlood(transport);
  limitMessageDepth(transport);
  refuseInitializeAfterForeignOffer(transport);
  followHandshake(transport, scope.waitingOn);
  const processGroup = processGroupOf(transport);
  const client = deps.clientFactory?.(spec) ?? new Client(deps.clientInfo, clientOptions(request.config));
  const { host } = deps;
  deps.telemetry?.instrument(transport, {
    name: request.name,
    kind,
    url: request.config.url,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    secrets,
    listsPrompt: (prompt) => session.manifest.prompts.some((listed) => listed.name === prompt),
  });
  const session: Session = new Session({
    server: request.name,
    client,
    transport,
    logger: deps.logger,
    stderr,
    secrets,
    origin: originOf(request.config.url),
    processGroup,
    processExit: transport instanceof ProcessGroupStdioTransport ? () => transport.exitedByItself : undefined,
    onClosed: () => deps.tracker.remove(request.owner, session),
    logLevel: () => deps.host?.loggingLevel,
    answerInput: host && ((input, signal) => host.answerInput(request.name, session.secretsShown(), input, signal)),
    journal: deps.journal?.recorderFor(request.config),
  });
  // Log messages and resource updates go through the session to the chart, which reports them to the registry.
  deps.host?.attach(client, request.name, () => session.secretsShown(), (event) => session.notify(event));
  deps.tracker.add(request.owner, request.name, session);
  const onAbort = () => void session.close();
  request.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const remembered = deps.eras?.recall(request.name, request.config);
    // Each attempt starts again: one after a refused remembered era probes.
    scope.waitingOn.handshake = remembered?.kind === 'modern' ? 'resumed' : firstHandshake(request.config);
    const probed = !remembered && transport instanceof ProcessGroupStdioTransport && (request.config.protocol ?? 'auto') === 'auto' ? transport : undefined;
    if (probed) deps.lifecycle?.probed(request.name);
    // The session owns the probe too: a close (a DISCONNECT, dispose) waits until the probe is over.
    const prior = remembered ?? (probed ? await session.waitOnClose(probeStdio(request, deps, probed, deadline)) : undefined);
    // The probe's answer stands even if this attempt fails: a server in a crash loop is not probed every time.
    if (prior && !remembered) deps.eras?.remember(request.name, request.config, prior);
    let connected = false;
    try {
      await client.connect(transport, { ...deadline.requestOptions(), prior });
      // The SDK took a refused server/discover answer for a legacy server, which then answered initialize.
      const refused = refusedHandshake(transport);
      if (refused) throw refused;
      connected = true;
      deps.eras?.remember(request.name, request.config, eraOf(client));
      request.onNegotiated?.(client.getNegotiatedProtocolVersion(), client.getProtocolEra());
      const lists = await listManifest({ server: request.name, client, logger: deps.logger, deadline });
      session.manifest = { ...lists, protocolVersion: client.getNegotiatedProtocolVersion() };
    } catch (error) {
      // Whatever the SDK made of a refused handshake answer (a legacy server, a network failure), it is final.
      const refused = refusedHandshake(transport);
      if (refused) throw refused;
      // The server refused the era it was addressed in (it may have moved): asked again. A remembered
      // modern era costs no round trip at connect, so its refusal may come with the first list.
      if (prior && error instanceof ProtocolError && (!connected || remembered)) {
        deps.eras?.forget(request.name, request.config);
        if (remembered) scope.eraRefused = true;
      }
      throw error;
    }
    session.goLive(request.options.connectTimeoutMs);
    // The abort listener stays on: a DISCONNECT that lands after this return but before the chart
    // has taken the session (a few microtask turns) aborts the signal, and nobody else would close
    // it. Once the chart has the result, XState never aborts the signal again.
    return session;
  } catch (error) {
    request.signal.removeEventListener('abort', onAbort);
    // Read before the close, which ends the process: an exit seen now is the server's own.
    diagnostics.exit = transport instanceof ProcessGroupStdioTransport ? transport.exitedByItself : undefined;
    if (error instanceof SdkHttpError && error.status === 429) error.data.retryAfter ??= retryAfterOf(transport);
    diagnostics.stdoutClosed = transport instanceof ProcessGroupStdioTransport && transport.closedItsStdout;
    await session.close();
    diagnostics.stderrTail = session.stderrTail();
    throw error;
  }
}

/** Where an HTTP server is, without the path, query or credentials its URL may carry. */
function originOf(url: string | undefined): string | undefined {
  return url !== undefined && URL.canParse(url) ? new URL(url).origin : undefined;
}

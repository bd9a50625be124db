import { Client, SdkError, SdkErrorCode, SUPPORTED_PROTOCOL_VERSIONS, UnsupportedProtocolVersionError, type ClientCapabilities, type DiscoverResult, type PriorDiscovery } from '@modelcontextprotocol/client';
import { quoted } from '../../machines/control-characters.js';
import { capErrorText } from '../text-limits.js';
import { terminateGroup } from '../transports/process-group.js';
import type { ProcessGroupStdioTransport } from '../transports/stdio.js';
import type { Deadline } from './deadline.js';
import { refusedHandshake } from './message-depth-limit.js';
import { Slots } from './probe-slots.js';

/** The 2026-07-28 revision: the first without `initialize`. */
export const MODERN_REVISION = '2026-07-28';

/**
 * How long a stdio server gets to answer `server/discover` before it counts as legacy: some
 * legacy servers never answer a request that comes before `initialize`.
 */
export const STDIO_PROBE_TIMEOUT_MS = 10_000;

/**
 * Era probes running at once in this process, whatever the number of managers: 50 servers
 * connecting together probe 4 at a time instead of 50 at once (a legacy server's probe costs a
 * whole server process, started and ended). The wait for a slot counts against the connect's
 * deadline.
 */
export const MAX_CONCURRENT_PROBES = 4;

const probeSlots = new Slots(MAX_CONCURRENT_PROBES);

export interface StdioProbeRequest {
  name: string;
  /** The session's transport, not started yet: the probe starts its process. */
  transport: ProcessGroupStdioTransport;
  clientInfo: { name: string; version: string };
  capabilities: ClientCapabilities;
  /**
   * The connect's time: the wait for a slot and the probe count against it, and its end (or a
   * DISCONNECT) ends the probe early. The probe itself gets at most STDIO_PROBE_TIMEOUT_MS of it.
   */
  deadline: Deadline;
}

/**
 * Which era a stdio server speaks, asked with `server/discover` on the session's own transport
 * before the session's client takes it. A modern answer keeps the process: `server/discover` is
 * stateless in 2026-07-28, so the session's client takes the process over as it runs, and the
 * connect starts one process, not two. Anything else (an error, no answer in time, an exit) means
 * a legacy server, which a request before `initialize` may have ended or left in a bad state:
 * that process is ended with its whole group and the session's connect starts a new one. (The
 * SDK probes its own stdio transport on a throw-away sibling and always starts the session's
 * process afterwards; ours keeps each server in a process group, so the probe is done here.)
 * The answer feeds `client.connect(transport, { prior })`, which then asks the server nothing twice.
 */
export async function probeStdioEra(request: StdioProbeRequest): Promise<PriorDiscovery> {
  const giveBack = await probeSlots.take(request.deadline.signal);
  try {
    // Under load the slot may come after the time is up but before the deadline's timer has run:
    // then no process is started for a connect that is over, and the slot goes on at once.
    request.deadline.check();
    return await probeOnProcess(request);
  } finally {
    giveBack();
  }
}

async function probeOnProcess(request: StdioProbeRequest): Promise<PriorDiscovery> {
  const { transport } = request;
  // Measured now, after the wait for a slot, not when the connect began.
  const timeoutMs = Math.min(request.deadline.remainingMs(), STDIO_PROBE_TIMEOUT_MS);
  const { signal } = request.deadline.requestOptions();
  // What the session set on the transport before (telemetry): given back once the probe's client lets go.
  const own = { onmessage: transport.onmessage, onerror: transport.onerror, onclose: transport.onclose };
  transport.probeNext();
  const client = new Client(request.clientInfo, {
    capabilities: request.capabilities,
    versionNegotiation: { mode: { pin: MODERN_REVISION }, probe: { timeoutMs } },
  });
  // An abort (a DISCONNECT, the connect's deadline) ends the process at once, which ends the probe.
  const onAbort = () => void transport.close();
  signal.addEventListener('abort', onAbort, { once: true });
  let discover: DiscoverResult | undefined;
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
    discover = client.getDiscoverResult();
  } catch (error) {
    // No modern answer (an error, a timeout, or the process exited on the probe): a legacy server.
    // An answer refused for its depth or size is no sign of a legacy server: said as such.
    const refused = refusedHandshake(transport);
    if (!(error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) || signal.aborted || refused) {
      await endProbedProcess(transport, client);
      throw refused ?? (error instanceof UnsupportedProtocolVersionError ? versionsApart(error) : error);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // The probe's client lets go of the transport without closing it.
    Object.assign(transport, own);
  }
  if (discover && !signal.aborted) {
    transport.keepProbedProcess();
    return { kind: 'modern', discover };
  }
  await endProbedProcess(transport, client);
  signal.throwIfAborted();
  transport.startAfresh();
  return { kind: 'legacy' };
}

/**
 * The SDK says only "Unsupported protocol version: 2026-07-28" (or the server's own words) when a
 * server's answer lists none of ours: said with both lists, so the user sees which side to update.
 * A refusal that lists one of ours is left as it is.
 */
export function versionsApart(error: UnsupportedProtocolVersionError): UnsupportedProtocolVersionError {
  const ours = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];
  const theirs: unknown[] = Array.isArray(error.supported) ? error.supported : [];
  if (theirs.some((version) => typeof version === 'string' && ours.includes(version))) return error;
  const answer = error.requested === MODERN_REVISION || error.requested === '' ? 'server/discover' : 'initialize';
  return versionRefusalSaidHere(
    { supported: error.supported, requested: error.requested },
    `the server's ${answer} answer offers only ${offeredVersions(error)}; this client speaks ${ours.join(', ')}`,
  );
}

/**
 * The SDK refuses an `initialize` answer naming a version it does not speak in `initialize` with
 * a plain Error ("Server's protocol version is not supported: X"), which a person reads as "update
 * the server" even when X is 2026-07-28, which this client speaks (through `server/discover`).
 * Said as a refusal naming both sides, so the hint can tell the two apart (`speaksOnlyModern`).
 */
export function initializeAnswerRefused(error: unknown): UnsupportedProtocolVersionError | undefined {
  const named = error instanceof Error ? /^Server's protocol version is not supported: (.*)$/s.exec(error.message)?.[1] : undefined;
  if (named === undefined) return undefined;
  const refusal = versionRefusalSaidHere({ supported: [named], requested: SUPPORTED_PROTOCOL_VERSIONS[0] ?? '' });
  if (named !== MODERN_REVISION) return versionsApart(refusal);
  return versionRefusalSaidHere(
    { supported: [named], requested: refusal.requested },
    `the server's initialize answer names the protocol version "${MODERN_REVISION}", which this client speaks through server/discover, not initialize (in initialize it speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
  );
}

/**
 * The -32022 refusals this client words itself (no server said them): their message is ours, so
 * it is shown without the "MCP error -32022:" a server's own refusal gets (withErrorCode); the
 * code stays on the error (`code`, `data`).
 */
const saidHere = new WeakSet<object>();

function versionRefusalSaidHere(versions: { supported: string[]; requested: string }, message?: string): UnsupportedProtocolVersionError {
  const refusal = new UnsupportedProtocolVersionError(versions, message);
  saidHere.add(refusal);
  return refusal;
}

/** Whether `error` is a version refusal this client worded itself (versionRefusalSaidHere). */
export function isVersionRefusalSaidHere(error: unknown): boolean {
  return typeof error === 'object' && error !== null && saidHere.has(error);
}

/** The versions a -32022 refusal lists, as the server wrote them (quoted, the first five). */
export function offeredVersions(error: UnsupportedProtocolVersionError): string {
  const theirs: unknown[] = Array.isArray(error.supported) ? error.supported : [];
  const shown = theirs.slice(0, 5).map((version) => quoted(capErrorText(String(version), 40)));
  if (theirs.length > shown.length) shown.push(`and ${theirs.length - shown.length} more`);
  return `the protocol version${theirs.length === 1 ? '' : 's'} ${shown.join(', ') || '(none)'}`;
}

/**
 * Ends the probed process and everything it started. Its group first (quick: no grace for
 * stdin), then the transport and the client, which also ends a process an abort caught while it
 * was still starting; then the group once more, for what that one started meanwhile.
 */
async function endProbedProcess(transport: ProcessGroupStdioTransport, client: Client): Promise<void> {
  const group = () => (transport.grouped ? transport.pid : undefined);
  const before = group();
  if (before !== undefined) await terminateGroup(before);
  // The client may not have taken the transport yet (an abort while it was starting): close both.
  await transport.close();
  await client.close().catch(() => {});
  const after = group();
  if (after !== undefined) await terminateGroup(after);
}

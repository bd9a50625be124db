import { Client, SdkError, SdkErrorCode, type ClientCapabilities, type PriorDiscovery } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../machines/types.js';
import { terminateGroup } from '../transports/process-group.js';
import { createStdioTransport, type ProcessGroupStdioTransport } from '../transports/stdio.js';
import type { Deadline } from './deadline.js';
import { Slots } from './probe-slots.js';

/** The 2026-07-28 revision: the first without `initialize`. */
export const MODERN_REVISION = '2026-07-28';

/**
 * How long a stdio server gets to answer `server/discover` before it counts as legacy: some
 * legacy servers never answer a request that comes before `initialize`.
 */
export const STDIO_PROBE_TIMEOUT_MS = 10_000;

/**
 * Probe processes alive at once in this process, whatever the number of managers: 50 servers
 * connecting together start their probes 4 at a time instead of 50 extra processes at once (each
 * probe is a whole server process, started and ended). The wait for a slot counts against the
 * connect's deadline.
 */
export const MAX_CONCURRENT_PROBES = 4;

const probeSlots = new Slots(MAX_CONCURRENT_PROBES);

export interface StdioProbeRequest {
  name: string;
  config: McpServerConfig;
  clientInfo: { name: string; version: string };
  capabilities: ClientCapabilities;
  /**
   * The connect's time: the wait for a slot and the probe count against it, and its end (or a
   * DISCONNECT) ends the probe early. The probe itself gets at most STDIO_PROBE_TIMEOUT_MS of it.
   */
  deadline: Deadline;
}

/**
 * Which era a stdio server speaks, asked of a throw-away sibling process started from the same
 * entry: some servers exit on any request before `initialize`, so the probe must not spend the
 * process the connection will use. The SDK does this itself for its own stdio transport only;
 * ours keeps each server in a process group, so the sibling is ended with its whole group.
 * The answer feeds `client.connect(transport, { prior })`, which then neither probes nor asks
 * the session's process anything twice.
 */
export async function probeStdioEra(request: StdioProbeRequest): Promise<PriorDiscovery> {
  const giveBack = await probeSlots.take(request.deadline.signal);
  try {
    // Under load the slot may come after the time is up but before the deadline's timer has run:
    // then no probe process is started for a connect that is over, and the slot goes on at once.
    request.deadline.check();
    return await probeOnSibling(request);
  } finally {
    giveBack();
  }
}

async function probeOnSibling(request: StdioProbeRequest): Promise<PriorDiscovery> {
  // Measured now, after the wait for a slot, not when the connect began.
  const timeoutMs = Math.min(request.deadline.remainingMs(), STDIO_PROBE_TIMEOUT_MS);
  const { signal } = request.deadline.requestOptions();
  const sibling = createStdioTransport(request.name, request.config);
  // Nobody reads the sibling's stderr: let it flow away instead of filling the pipe.
  sibling.stderr.resume();
  const client = new Client(request.clientInfo, {
    capabilities: request.capabilities,
    versionNegotiation: { mode: { pin: MODERN_REVISION }, probe: { timeoutMs } },
  });
  // An abort (a DISCONNECT, the connect's deadline) ends the sibling at once, which ends the probe.
  const onAbort = () => void sibling.close();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await client.connect(sibling, { signal, timeout: timeoutMs });
    const discover = client.getDiscoverResult();
    return discover ? { kind: 'modern', discover } : { kind: 'legacy' };
  } catch (error) {
    // No modern answer (an error, a timeout, or the sibling exited on the probe): a legacy server.
    if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && !signal.aborted) {
      return { kind: 'legacy' };
    }
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
    await endSibling(sibling, client);
  }
}

/**
 * Ends the sibling and everything it started. Its group first (quick: no grace for stdin), then
 * the client's close, which also ends a process an abort caught while it was still starting;
 * then the group once more, for what that one started meanwhile.
 */
async function endSibling(sibling: ProcessGroupStdioTransport, client: Client): Promise<void> {
  const group = () => (sibling.grouped ? sibling.pid : undefined);
  const before = group();
  if (before !== undefined) await terminateGroup(before);
  // The client may not have taken the transport yet (an abort while it was starting): close both.
  await sibling.close();
  await client.close().catch(() => {});
  const after = group();
  if (after !== undefined) await terminateGroup(after);
}

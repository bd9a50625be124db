/**
 * `servers --check`: each server's health, from one connect per enabled server (doctor's check,
 * bounded by --timeout and --concurrency), and for the others the reason they are off.
 */
import type { DiscoveredServer, DiscoveryResult } from '../../config/index.js';
import { offExplanation } from '../failure-text.js';
import type { GlobalOptions } from '../options.js';
import { terminalLine } from '../terminal-text.js';
import type { ManifestIndex } from '../../manifest-index/index.js';
import { checkServers, serverFailureLines, type CheckListener, type DoctorReport, type ServerCheck } from './doctor.js';

export type HealthState = 'connected' | 'needs login' | 'failed' | 'pending approval' | 'disabled' | 'denied';

export interface ServerHealth {
  state: HealthState;
  /** Why it is not connected: the connect error, or what keeps it off. */
  reason?: string;
  /** What the person can do about it. */
  hint?: string;
  /** It answered that it offers no OAuth login: a token in a header is the way in. */
  offersNoLogin?: true;
  /** The last lines a server that failed wrote to stderr, when it wrote any: often the reason itself. */
  stderrTail?: string;
  /** Tools it listed, when connected. */
  tools?: number;
  protocolVersion?: string;
}

/** How long a server gets to connect when --timeout is not given. */
export const DEFAULT_CHECK_TIMEOUT_MS = 30_000;

export interface HealthCheckOptions {
  concurrency: number;
  timeout: number;
  /** `servers --check --json`: Ctrl-C prints the one JSON object too. */
  json?: boolean;
  /** The manifest index the check records in and the listing reads; default ~/.ai-zen/mcp-index.json. */
  index?: ManifestIndex;
}

/** The health a connect found. */
export function checkedHealth(check: ServerCheck): ServerHealth {
  if (check.state === 'connected') {
    return { state: 'connected', tools: check.tools ?? 0, ...(check.protocolVersion ? { protocolVersion: check.protocolVersion } : {}) };
  }
  const error = check.error!;
  return {
    state: error.needsLogin ? 'needs login' : 'failed',
    reason: error.message,
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.offersNoLogin ? { offersNoLogin: true } : {}),
    ...(error.stderrTail ? { stderrTail: error.stderrTail } : {}),
  };
}

function offHealth(server: DiscoveredServer): ServerHealth {
  if (server.trust === 'awaiting approval') {
    const { message, hint } = offExplanation(server.name, server);
    return { state: 'pending approval', reason: message, ...(hint ? { hint } : {}) };
  }
  if (server.trust === 'denied') return { state: 'denied', reason: server.disabledBecause ?? 'project servers are denied (--project-servers deny)' };
  return { state: 'disabled', reason: server.disabledBecause ?? '"disabled": true in its entry' };
}

/** The health of a server that was not connected: why it is off. */
export function skippedHealth(discovery: DiscoveryResult, { name, reason }: DoctorReport['skipped'][number]): ServerHealth {
  return reason === 'denied' ? { state: 'denied', reason: 'kept out by --allow/--deny' } : offHealth(discovery.servers[name]!);
}

/**
 * The health of every server in use (not of one a same-named server in another file hides), by
 * name. `listener` is told of each check as it ends (a table written row by row).
 */
export async function checkHealth(options: GlobalOptions, discovery: DiscoveryResult, check: HealthCheckOptions, listener?: CheckListener): Promise<Map<string, ServerHealth>> {
  const report = await checkServers(options, { json: false, ...check }, discovery, listener);
  const health = new Map<string, ServerHealth>(report.servers.map((server) => [server.name, checkedHealth(server)]));
  for (const skipped of report.skipped) health.set(skipped.name, skippedHealth(discovery, skipped));
  return health;
}

/** At most this wide in the table; the whole reason is printed under it. */
export const MAX_HEALTH_CELL = 60;

/** The table cell: the state, with the tool count or the reason (without the "could not connect to" its row already says). */
export function healthCell(health: ServerHealth | undefined): string {
  if (!health) return '-';
  if (health.state === 'connected') return `connected (${health.tools} ${health.tools === 1 ? 'tool' : 'tools'})`;
  if (health.state !== 'failed') return health.state;
  const reason = terminalLine((health.reason ?? '').replace(/^could not connect to ".*?": /, ''));
  const cell = `failed: ${reason}`;
  return cell.length > MAX_HEALTH_CELL ? `${cell.slice(0, MAX_HEALTH_CELL - 1)}…` : cell;
}

/** Under the table: each server that should work and does not, with what to do. Disabled and denied ones are off on purpose. */
export function healthDetails(health: ReadonlyMap<string, ServerHealth>): string[] {
  const lines: string[] = [];
  for (const [name, entry] of health) {
    if (entry.state === 'connected' || entry.state === 'disabled' || entry.state === 'denied') continue;
    lines.push(...serverFailureLines(name, { message: entry.reason ?? entry.state, stderrTail: entry.stderrTail, hint: entry.hint }));
  }
  return lines;
}

/** The states of a server that was connected to. */
const CHECKED_STATES: readonly HealthState[] = ['connected', 'needs login', 'failed'];

/** "Checked 3 servers: 1 connected, 1 needs login, 1 failed." */
export function healthSummary(health: ReadonlyMap<string, ServerHealth>): string {
  const checked = [...health.values()].map((entry) => entry.state).filter((state) => CHECKED_STATES.includes(state));
  if (checked.length === 0) return 'No server was checked: none is enabled and allowed.';
  const parts = CHECKED_STATES.map((state) => ({ state, count: checked.filter((each) => each === state).length }))
    .filter(({ count }) => count > 0)
    .map(({ state, count }) => `${count} ${state}`);
  return `Checked ${checked.length} ${checked.length === 1 ? 'server' : 'servers'}: ${parts.join(', ')}.`;
}

/** A checked server that does not work: `servers --check` exits 1, as doctor does. */
export function anyUnhealthy(health: ReadonlyMap<string, ServerHealth>): boolean {
  return [...health.values()].some((entry) => entry.state !== 'connected' && CHECKED_STATES.includes(entry.state));
}

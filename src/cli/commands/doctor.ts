import { resourceMetadataWarning } from '../../auth/resource-metadata.js';
import type { DiscoveredServer, DiscoveryResult } from '../../config/index.js';
import { formatProblem } from '../../config/index.js';
import { silentLogger } from '../../logger.js';
import { McpConnectionManager } from '../../manager.js';
import { ManifestIndex, projectFilesOf, recordManifests } from '../../manifest-index/index.js';
import { nameRecord } from '../../../machines/name-record.js';
import type { McpServerConfig } from '../../../machines/types.js';
import type { ProtocolEra } from '../../server-status.js';
import { isServerAllowed } from '../../tools/permissions.js';
import { explainFailureAsking, indentedLines, type FailureExplanation } from '../failure-text.js';
import { logLifecycle } from '../lifecycle-log.js';
import { cliLogger } from '../logger.js';
import { noteConfigFiles } from '../config-file-notes.js';
import { discover, hasErrors, permissionsFrom, type GlobalOptions } from '../options.js';
import { fittedTable, stdoutColumns } from '../fitted-table.js';
import { rowsInOrder } from '../rows-in-order.js';
import { progressRows, type ProgressRows } from '../progress-rows.js';
import { endIfInterrupted, endOnInterrupt } from '../cancel-on-interrupt.js';
import { terminalJson, terminalLine } from '../terminal-text.js';

export interface DoctorOptions {
  json: boolean;
  /** Servers connected at the same time. */
  concurrency: number;
  /** How long each server gets to connect (initialize and every list). */
  timeout: number;
  /** The manifest index the fetched manifests are recorded in; default ~/.ai-zen/mcp-index.json. */
  indexPath?: string;
  /** That index, when the caller reads it too (a row written as its check ends shows what was just recorded). */
  index?: ManifestIndex;
}

/** One server's check. Counts are there only when it connected. */
export interface ServerCheck {
  name: string;
  transport: string;
  source: string;
  state: 'connected' | 'error';
  connectMs: number;
  /** The protocol revision negotiated with the server, and its era. */
  protocolVersion?: string;
  era?: ProtocolEra;
  tools?: number;
  resources?: number;
  prompts?: number;
  error?: FailureExplanation;
}

export interface DoctorReport {
  servers: ServerCheck[];
  /** Servers not checked, and why: disabled in their file, or kept out by --allow/--deny. */
  skipped: Array<{ name: string; reason: 'disabled' | 'awaiting approval' | 'denied' }>;
  problems: DiscoveryResult['problems'];
}

/** Connects one server (no retries: a doctor wants the first answer), then lets it go. */
async function checkServer(manager: McpConnectionManager, server: DiscoveredServer, timeoutMs: number, rows: ProgressRows): Promise<ServerCheck> {
  const started = performance.now();
  const base = { name: server.name, transport: server.transport, source: server.source };
  rows.update(server.name, 'connecting…');
  try {
    const manifest = await manager.connect(server.name, server.config, { maxRetries: 0, autoReconnect: false, connectTimeoutMs: timeoutMs });
    const connectMs = Math.round(performance.now() - started);
    rows.update(server.name, `connected in ${connectMs} ms`, true);
    const { protocolVersion, era } = manager.serverStatus(server.name) ?? {};
    return {
      ...base,
      state: 'connected',
      connectMs,
      ...(protocolVersion ? { protocolVersion, era } : {}),
      tools: manifest.tools.length,
      resources: manifest.resources.length,
      prompts: manifest.prompts.length,
    };
  } catch (error) {
    const connectMs = Math.round(performance.now() - started);
    const explanation = await explainFailureAsking(server.name, error, server);
    // The login the hint suggests would meet this metadata, and the SDK would work around it without a word.
    const warning = explanation.needsLogin ? await resourceMetadataWarning(server.name, server.config) : undefined;
    if (warning) explanation.warning = warning;
    rows.update(server.name, `failed after ${connectMs} ms`, true);
    return { ...base, state: 'error', connectMs, error: explanation };
  } finally {
    // One server's processes at a time per worker, however many are configured.
    await manager.disconnect(server.name);
  }
}

/** Runs `work` over `items` with at most `limit` at a time; results keep the order of `items`. */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Told of the checks as they go: the servers to check and those not checked, before any starts; each check as it ends (`index` in the first list). */
export interface CheckListener {
  started(checked: readonly DiscoveredServer[], skipped: DoctorReport['skipped']): void;
  checked(index: number, check: ServerCheck): void;
}

export async function checkServers(options: GlobalOptions, doctor: DoctorOptions, discovery: DiscoveryResult, listener?: CheckListener): Promise<DoctorReport> {
  const permissions = permissionsFrom(options);
  const all = Object.values(discovery.servers);
  const skipped: DoctorReport['skipped'] = [];
  const checked: DiscoveredServer[] = [];
  for (const server of all) {
    if (server.disabled) skipped.push({ name: server.name, reason: server.trust === 'awaiting approval' ? server.trust : 'disabled' });
    else if (!isServerAllowed(permissions, server.name)) skipped.push({ name: server.name, reason: 'denied' });
    else checked.push(server);
  }
  // Every failure is in the report; the manager's own warnings only with --verbose.
  const logger = options.verbose ? cliLogger(true) : silentLogger;
  const manager = new McpConnectionManager({ logger });
  if (options.verbose) logLifecycle(manager, (line) => process.stderr.write(`${line}\n`));
  // What doctor fetched is what `index` would have: recorded, so `servers` and `search` see it fresh.
  const index = doctor.index ?? new ManifestIndex({ path: doctor.indexPath });
  // The manifests recorded from a --config file are noted with it, as `index` notes them: a later `index --prune` keeps them.
  noteConfigFiles(index, options, discovery);
  const configs = nameRecord<McpServerConfig>();
  for (const server of checked) configs[server.name] = server.config;
  const stopRecording = recordManifests(manager, index, configs, { logger, projectFiles: projectFilesOf(discovery.servers) });
  const rows = progressRows(checked.map((server) => server.name));
  const forgetInterrupt = endOnInterrupt(rows, index, doctor.json);
  listener?.started(checked, skipped);
  try {
    const servers = await mapBounded(checked, doctor.concurrency, async (server, index) => {
      const check = await checkServer(manager, server, doctor.timeout, rows);
      listener?.checked(index, check);
      return check;
    });
    return { servers, skipped, problems: discovery.problems };
  } finally {
    forgetInterrupt();
    rows.finish();
    stopRecording();
    await manager.dispose();
    await index.flush().catch((error: Error) => logger.warn(`Could not write ${index.path}: ${error.message}`));
  }
}

/** A server that failed, as doctor and index show it: what failed, its stderr, what to do. `after` follows the first line. */
export function serverFailureLines(server: string, failure: FailureExplanation, indent = '', after = ''): string[] {
  const lines = [`${indent}${terminalLine(server)}: ${terminalLine(failure.message)}${after}`];
  if (failure.stderrTail) lines.push(`${indent}  stderr:`, ...indentedLines(failure.stderrTail, `${indent}    `));
  if (failure.hint) lines.push(`${indent}  hint: ${terminalLine(failure.hint)}`);
  if (failure.warning) lines.push(`${indent}  warning: ${terminalLine(failure.warning)}`);
  return lines;
}

function count(value: number | undefined): string {
  return value === undefined ? '-' : String(value);
}

const TABLE_HEADER = ['NAME', 'TRANSPORT', 'STATE', 'PROTOCOL', 'CONNECT', 'TOOLS', 'RESOURCES', 'PROMPTS'];

function tableRow(check: ServerCheck): string[] {
  return [
    terminalLine(check.name),
    check.transport,
    check.state,
    check.protocolVersion ?? '-',
    `${check.connectMs} ms`,
    count(check.tools),
    count(check.resources),
    count(check.prompts),
  ];
}

/**
 * The table written row by row as the checks end, in the config's order, for a pipe or a file
 * (rows-in-order.ts). The columns are as wide as their cells can be, known before any check ends
 * (a count of 100,000 tools or more would stand out).
 */
function tableAsChecked(timeoutMs: number, write: (line: string) => void): CheckListener {
  let put: ReturnType<typeof rowsInOrder> | undefined;
  return {
    started(checked) {
      if (checked.length === 0) return;
      // The longest state, a protocol revision (a date), and a connect that took the whole time limit.
      const widest = checked.map((server) => [terminalLine(server.name), server.transport, 'connected', '2025-06-18', `${timeoutMs} ms`]);
      put = rowsInOrder(TABLE_HEADER, widest, write);
    },
    checked(index, check) {
      put?.(index, tableRow(check));
    },
  };
}

/**
 * `columns`: the terminal's width (stdoutColumns()); undefined: the table as wide as its cells.
 * `tableWritten`: the table was written as the checks ended (`tableAsChecked`); the rest follows it.
 */
export function formatDoctorReport(report: DoctorReport, columns?: number, tableWritten = false): string {
  const lines: string[] = [];
  if (report.servers.length === 0) {
    lines.push('No server to check. Run `mcp-statechart servers` to see what is configured.');
  } else if (!tableWritten) {
    lines.push(...fittedTable([TABLE_HEADER, ...report.servers.map(tableRow)], columns));
  }
  for (const check of report.servers) {
    if (check.error) lines.push('', ...serverFailureLines(check.name, check.error));
  }
  if (report.skipped.length > 0) {
    lines.push('', `Not checked: ${report.skipped.map((entry) => `${terminalLine(entry.name)} (${entry.reason})`).join(', ')}`);
  }
  if (report.problems.length > 0) {
    lines.push('', `Config problems (${report.problems.length}):`, ...report.problems.map((problem) => `  ${formatProblem(problem)}`));
  }
  const failed = report.servers.filter((check) => check.state === 'error').length;
  lines.push('', summary(report.servers.length, failed));
  return lines.join('\n');
}

/** The last line, its numbers agreeing with their nouns. */
function summary(checked: number, failed: number): string {
  if (checked === 0) return 'No server was checked.';
  if (failed > 0) return `${failed} of ${checked} ${checked === 1 ? 'server' : 'servers'} failed.`;
  return checked === 1 ? 'The 1 checked server works.' : `All ${checked} checked servers work.`;
}

/** `doctor`: exit 1 when a server fails or a config file or entry has errors. */
export async function runDoctor(options: GlobalOptions, doctor: DoctorOptions): Promise<number> {
  // The report lists the config problems; they are not logged a second time.
  const discovery = await endIfInterrupted(discover(options, silentLogger), doctor.json);
  const columns = stdoutColumns();
  // On a terminal the rows are shown as they go on stderr, and the table fits its width at the end.
  const asChecked = !doctor.json && columns === undefined ? tableAsChecked(doctor.timeout, (line) => process.stdout.write(`${line}\n`)) : undefined;
  const report = await checkServers(options, doctor, discovery, asChecked);
  const failedCheck = report.servers.some((check) => check.state === 'error');
  const configProblems = hasErrors(discovery);
  if (doctor.json) {
    const failure = failedCheck ? { code: 'CHECK_FAILED' } : configProblems ? { code: 'CONFIG_PROBLEMS' } : {};
    process.stdout.write(`${terminalJson({ ok: !failedCheck && !configProblems, ...failure, ...report })}\n`);
  } else process.stdout.write(`${formatDoctorReport(report, columns, asChecked !== undefined)}\n`);
  return failedCheck || configProblems ? 1 : 0;
}

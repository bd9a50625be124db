import type { ConfigProblem, DiscoveredServer, DiscoveryResult } from '../../config/index.js';
import { formatProblem } from '../../config/index.js';
import { isPastPromisedFreshness, projectFileOf, type ManifestIndex } from '../../manifest-index/index.js';
import { unreadableIndexReason } from '../../manifest-index/manifest-index.js';
import { ageText, pastTtlText } from '../../tools/age-text.js';
import { isServerAllowed } from '../../tools/permissions.js';
import { oneLinePurpose } from '../../tools/search-mcp-tools.js';
import { eraOfRevision, type ProtocolEra } from '../../server-status.js';
import { createLoaderTools, type ExposureDecision, type LoaderPermissions } from '../../tools/index.js';
import { definitionBytes } from '../../tools/exposure.js';
import { McpConnectionManager } from '../../manager.js';
import { silentLogger } from '../../logger.js';
import { permissionsFrom, type GlobalOptions } from '../options.js';
import { counted } from '../counted.js';
import { cutToWidth, displayWidth, wrapToWidth } from '../display-width.js';
import { fittedTable } from '../fitted-table.js';
import { terminalLine } from '../terminal-text.js';
import { lookAlikeNotes, nameNote } from '../../../machines/look-alike-names.js';
import { rowsInOrder } from '../rows-in-order.js';
import type { CheckListener } from './doctor.js';
import { checkedHealth, healthCell, healthDetails, healthSummary, MAX_HEALTH_CELL, skippedHealth, type ServerHealth } from './server-health.js';

/**
 * `yes` with its tool count and when it was listed (`stale` too when past a `ttlMs` above 0 its
 * server gave the tool list: still searched, read live on the next call), `stale` as a whole when indexed
 * for an earlier definition, or `no`.
 */
function indexState(
  server: DiscoveredServer,
  index: ManifestIndex | undefined,
  now: number,
): { indexed: 'yes' | 'stale' | 'no'; tools?: number; indexedAt?: string; stale?: string; protocolVersion?: string; era?: ProtocolEra; instructions?: string } {
  const lookup = index?.lookup(server.name, server.config, projectFileOf(server));
  if (lookup?.status === 'fresh') {
    const { manifest, indexedAt, instructions } = lookup.entry;
    const { tools, protocolVersion } = manifest;
    return {
      indexed: 'yes',
      tools: tools.length,
      indexedAt,
      ...(isPastPromisedFreshness(lookup.entry, now) ? { stale: pastTtlText(indexedAt, now) } : {}),
      ...(protocolVersion ? { protocolVersion, era: eraOfRevision(protocolVersion) } : {}),
      ...(instructions ? { instructions } : {}),
    };
  }
  return { indexed: lookup?.status === 'stale' ? 'stale' : 'no', ...(lookup?.status === 'stale' ? { indexedAt: lookup.entry.indexedAt } : {}) };
}

/**
 * Why the index cannot be used, and what to do, when it holds something this version cannot read
 * and there are servers it would show as indexed: said once, not in every row, where each INDEXED
 * cell would only say "no".
 */
function unusableIndex(index: ManifestIndex | undefined, listed: number): { path: string; consequence: string } | undefined {
  const reason = index && listed > 0 ? unreadableIndexReason(index.path) : undefined;
  if (reason === undefined) return undefined;
  return { path: index!.path, consequence: `${reason}, so no server shows as indexed: \`mcp-statechart index\` writes it again` };
}

/**
 * The discovered servers. Shows where each came from and how it connects, never its env,
 * headers, args or URL: those may hold secrets. With `health` (`servers --check`), each server
 * in use has its health; one hidden by a server of the same name has none.
 */
export function serversReport(
  result: DiscoveryResult,
  index?: ManifestIndex,
  permissions?: LoaderPermissions,
  health?: ReadonlyMap<string, ServerHealth>,
  exposure?: ExposureDecision,
) {
  const { unusable, ...report } = serversListing(result, index, permissions, health, exposure);
  return { ...report, problems: reportedProblems(result, unusable) };
}

/**
 * The config's problems, then a warning about an index file this version cannot use: one list for
 * the table's "Problems (N)" and the JSON's `problems`, so both count the same.
 */
function reportedProblems(result: DiscoveryResult, unusable: { path: string; consequence: string } | undefined): ConfigProblem[] {
  if (unusable === undefined) return result.problems;
  return [...result.problems, { severity: 'warning', file: unusable.path, message: `the index cannot be used: ${unusable.consequence}` }];
}

/** The report's servers, and the index file when it cannot be used (read once, for the table and the JSON). */
function serversListing(
  result: DiscoveryResult,
  index?: ManifestIndex,
  permissions?: LoaderPermissions,
  health?: ReadonlyMap<string, ServerHealth>,
  exposure?: ExposureDecision,
) {
  const now = Date.now();
  const healthOf = (server: DiscoveredServer) => (health && result.servers[server.name] === server ? health.get(server.name) : undefined);
  const listed = listedServers(result);
  return {
    /** What serve would offer the model with these flags, and the bytes of both choices. */
    ...(exposure ? { exposure } : {}),
    servers: listed.map((server) => listedServer(server, now, index, permissions, healthOf(server))),
    unusable: unusableIndex(index, listed.length),
  };
}

/** One server of the report, with its health when it has one. */
function listedServer(server: DiscoveredServer, now: number, index?: ManifestIndex, permissions?: LoaderPermissions, health?: ServerHealth) {
  const { instructions, ...indexed } = indexState(server, index, now);
  /** What search tells the model the server is for: the configured description's first line, else the indexed instructions'. */
  const purpose = oneLinePurpose({ name: server.name, description: server.description, instructions });
  return {
    name: server.name,
    scope: server.scope,
    transport: server.transport,
    disabled: server.disabled,
    /** A project entry the trust policy keeps off: `awaiting approval` or `denied`. */
    ...(server.trust ? { trust: server.trust } : {}),
    /** False when --allow/--deny keep it from being used. */
    allowed: isServerAllowed(permissions, server.name),
    ...indexed,
    description: server.description ?? '',
    ...(purpose ? { purpose } : {}),
    source: server.source,
    ...(health ? { health } : {}),
  };
}

/** What `serve` with the same flags would offer the model: the decision its loader tools make over this index (no server is started). */
export async function exposureDecision(result: DiscoveryResult, index: ManifestIndex, options: GlobalOptions): Promise<ExposureDecision> {
  const manager = new McpConnectionManager({ logger: silentLogger });
  try {
    const permissions = permissionsFrom(options, result.toolPermissions);
    return createLoaderTools({ manager, servers: result.servers, permissions, manifestIndex: index, exposure: options.exposure }).exposure;
  } finally {
    await manager.dispose();
  }
}

/** One line for a person: the choice, why, and what each choice costs. */
export function exposureLine({ mode, reason, loaderBytes, directBytes, directTokens, unknownServers }: ExposureDecision): string {
  const loader = `Loader tools ${loaderBytes} bytes (~${Math.ceil(loaderBytes / 4)} tokens)`;
  const own = `${directBytes} bytes (~${directTokens} tokens)`;
  // Only indexed servers' tools can be counted: a sum that leaves some out must say so.
  const unknown = unknownServers.length === 1 ? '1 server is not indexed' : `${unknownServers.length} servers are not indexed`;
  // The size of an empty list is no measurement: with no server's tools known (none in use yet, say only one awaiting approval) it would read like one.
  const servers =
    unknownServers.length === 0
      ? directBytes > definitionBytes([])
        ? `the servers' own tools ${own}`
        : "the servers' own tools: none known, so nothing is measured yet"
      : `the servers' own tools not known in full: ${unknown} (\`mcp-statechart index\` records them)${directBytes > definitionBytes([]) ? `; the indexed ones' ${own}` : ''}`;
  return `Exposure: ${mode} (${reason}). ${loader}; ${servers}.`;
}

/** Every server in use or kept off, a project entry that waits behind a server of the same name right after it. */
function listedServers(result: DiscoveryResult): DiscoveredServer[] {
  const shadowed = new Map((result.shadowed ?? []).map((server) => [server.name, server]));
  return Object.values(result.servers).flatMap((server) => {
    const behind = shadowed.get(server.name);
    return behind ? [server, behind] : [server];
  });
}

function status(server: { disabled: boolean; allowed: boolean; trust?: DiscoveredServer['trust'] }): string {
  if (server.trust === 'awaiting approval') return server.trust;
  if (server.disabled) return 'disabled';
  return server.allowed ? 'enabled' : 'denied';
}

function indexedCell(server: { indexed: string; tools?: number; indexedAt?: string; stale?: string }, now: number): string {
  if (server.indexed === 'no') return 'no';
  const age = server.indexedAt === undefined ? '' : `, ${ageText(server.indexedAt, now)} old`;
  if (server.indexed === 'stale') return `stale (older definition${age})`;
  return `${counted(server.tools ?? 0, 'tool')}${server.stale === undefined ? '' : ` (stale${age})`}`;
}

/** The widest a column gets; longer cells are cut with `…`, so one long name cannot widen every row. */
const MAX_COLUMN_WIDTH = { name: 48, description: 80 };
/** A problem line quoting a huge name stays readable. */
const MAX_PROBLEM_LENGTH = 500;

/** A name cut to make room for its note keeps at least this many columns. */
const MIN_NAME_SHOWN = 8;

/**
 * The name cell: the name, then what tells it from a look-alike, within the name column's width.
 * The note is what says which of two names that print alike this is, so the name is cut first.
 */
function nameCell(name: string, note: string): string {
  const room = Math.max(MAX_COLUMN_WIDTH.name - displayWidth(note), MIN_NAME_SHOWN);
  return cutToWidth(`${cell(name, room)}${note}`, MAX_COLUMN_WIDTH.name);
}

/** One table cell: on one line (a `\n` in a name must not forge a row), at most `width` columns. */
function cell(text: string, width: number): string {
  return cutToWidth(terminalLine(text), width);
}

/** What to do when no server is found: about the files `--config` named, when it named any (absolute paths), instead of discovery's. */
function noServersLine(configFiles: readonly string[], problems: readonly unknown[]): string {
  if (configFiles.length === 0) return 'No MCP servers found. Add some to ~/.ai-zen/mcp.json or .mcp.json, or pass --config <file>.';
  const named = `${configFiles.length === 1 ? 'the file' : 'the files'} --config names (${configFiles.join(', ')})`;
  if (problems.length === 0) return `No MCP servers found in ${named}: add them under "mcpServers" there.`;
  return `No MCP servers found in ${named}: ${problems.length === 1 ? 'the problem below says' : 'the problems below say'} why.`;
}

type ListedServer = ReturnType<typeof listedServer>;

function tableHeader(withHealth: boolean): string[] {
  return ['NAME', 'SCOPE', 'TRANSPORT', 'STATUS', 'PROTOCOL', 'INDEXED', ...(withHealth ? ['HEALTH'] : []), 'DESCRIPTION'];
}

/** What follows each name: what tells it from a look-alike (`café` twice, NFC and NFD, or `fs` and `fѕ`). */
function nameNotes(servers: ReadonlyArray<{ name: string }>): string[] {
  const alike = lookAlikeNotes(servers.map((server) => server.name));
  return servers.map((server, row) => `${nameNote(server.name)}${alike[row]}`);
}

function tableRow(server: ListedServer, note: string, now: number, withHealth: boolean): string[] {
  return [
    nameCell(server.name, note),
    server.scope,
    server.transport,
    status(server),
    // The revision this check negotiated, else the one the index recorded when the server was last listed.
    terminalLine(server.health?.protocolVersion ?? server.protocolVersion ?? '-'),
    indexedCell(server, now),
    ...(withHealth ? [healthCell(server.health)] : []),
    cell(server.purpose ?? '', MAX_COLUMN_WIDTH.description),
  ];
}

/**
 * `servers --check` into a pipe or a file: the table written row by row as the checks end, in
 * the config's order (rows-in-order.ts), so `servers --check | head -1` ends at the next row.
 * The servers not checked (off, or hidden by a server of the same name) need no wait. The
 * columns are as wide as their cells can get: a revision (a date), a just-indexed count of up to
 * 99,999 tools, and the widest health cell.
 */
export function tableAsChecked(result: DiscoveryResult, index: ManifestIndex | undefined, permissions: LoaderPermissions | undefined, write: (line: string) => void): CheckListener {
  const listed = listedServers(result);
  const rowOf = new Map(listed.map((server, row) => [server, row]));
  const notes = nameNotes(listed);
  let put: ReturnType<typeof rowsInOrder> | undefined;
  let checkedServers: readonly DiscoveredServer[] = [];
  const writeRow = (server: DiscoveredServer, health?: ServerHealth) => {
    const now = Date.now();
    const row = rowOf.get(server)!;
    put?.(row, tableRow(listedServer(server, now, index, permissions, health), notes[row]!, now, true));
  };
  return {
    started(checked, skipped) {
      checkedServers = checked;
      if (listed.length === 0) return;
      const now = Date.now();
      const before = listed.map((server, row) => tableRow(listedServer(server, now, index, permissions), notes[row]!, now, true));
      const longest = ['', '', '', '', '2025-06-18', indexedCell({ indexed: 'yes', tools: 99_999 }, now), 'x'.repeat(MAX_HEALTH_CELL), ''];
      put = rowsInOrder(tableHeader(true), [...before, longest], write);
      const skippedBy = new Map(skipped.map((entry) => [entry.name, entry]));
      const toCheck = new Set(checked);
      for (const server of listed) {
        if (toCheck.has(server)) continue;
        const entry = result.servers[server.name] === server ? skippedBy.get(server.name) : undefined;
        writeRow(server, entry && skippedHealth(result, entry));
      }
    },
    checked(at, check) {
      writeRow(checkedServers[at]!, checkedHealth(check));
    },
  };
}

export function formatServersTable(
  result: DiscoveryResult,
  index?: ManifestIndex,
  permissions?: LoaderPermissions,
  health?: ReadonlyMap<string, ServerHealth>,
  exposure?: ExposureDecision,
  configFiles: readonly string[] = [],
  /** The terminal's width (stdoutColumns()); undefined: the table as wide as its cells. */
  columns?: number,
  /** The table was written as the checks ended (`tableAsChecked`); the rest follows it. */
  tableWritten = false,
): string {
  const { servers, unusable } = serversListing(result, index, permissions, health);
  const problems = reportedProblems(result, unusable);
  const now = Date.now();
  const lines: string[] = [];
  if (servers.length === 0) {
    lines.push(noServersLine(configFiles, problems));
  } else if (!tableWritten) {
    const notes = nameNotes(servers);
    const rows = [tableHeader(health !== undefined), ...servers.map((server, row) => tableRow(server, notes[row]!, now, health !== undefined))];
    for (const line of fittedTable(rows, columns, rows[0]!.length - 1)) lines.push(line);
  }
  const details = health ? healthDetails(health) : [];
  if (details.length > 0) lines.push('', ...details);
  if (exposure && servers.length > 0) lines.push('', ...(columns === undefined ? [exposureLine(exposure)] : wrapToWidth(exposureLine(exposure), columns)));
  if (problems.length > 0) {
    lines.push('', `Problems (${problems.length}):`);
    for (const problem of problems) lines.push(`  ${cell(formatProblem(problem), MAX_PROBLEM_LENGTH)}`);
  }
  if (health && servers.length > 0) lines.push('', healthSummary(health));
  return lines.join('\n');
}

/**
 * `index`: connect each enabled, allowed server once, a few at a time, record its manifest in the
 * index and close it, so search_mcp_tools knows every server's tools without starting them.
 * A line per server as it finishes, then a summary; exit code 1 when any server failed.
 */
import type { McpServerConfig } from '../../../machines/types.js';
import { nameRecord } from '../../../machines/name-record.js';
import { indexServers, type ServerIndexOutcome } from '../../manifest-index/index-servers.js';
import { isPastTtl, ManifestIndex, projectFilesOf } from '../../manifest-index/index.js';
import { ageText, pastTtlText } from '../../tools/age-text.js';
import { isServerAllowed } from '../../tools/index.js';
import { cliLogger } from '../logger.js';
import { discover, permissionsFrom, type GlobalOptions } from '../options.js';
import { writeListing } from '../terminal-text.js';
import { counted } from '../counted.js';

export interface IndexCommandOptions {
  concurrency: number;
  /** The index file; default ~/.ai-zen/mcp-index.json. */
  indexPath?: string;
  /** `--timeout`: how long each server may take to connect. */
  timeoutMs?: number;
}

function progressLine(outcome: ServerIndexOutcome, done: number, total: number): string {
  const position = `[${String(done).padStart(String(total).length)}/${total}]`;
  const seconds = `${(outcome.ms / 1000).toFixed(1)} s`;
  return outcome.ok
    ? `${position} ${outcome.server}: ${counted(outcome.tools, 'tool')} (${seconds})`
    : `${position} ${outcome.server}: failed (${seconds}): ${outcome.error.split('\n')[0]}`;
}

/** What search keeps answering from for a server whose indexing failed: its earlier entry, with its age and whether it is past its ttl. */
function keptEntryText(index: ManifestIndex, server: string, config: McpServerConfig, projectFile: string | undefined, now: number): string {
  const lookup = index.lookup(server, config, projectFile);
  if (lookup.status !== 'fresh') return '';
  const { indexedAt } = lookup.entry;
  return isPastTtl(lookup.entry, now) ? ` (search keeps its entry, stale: ${pastTtlText(indexedAt, now)})` : ` (search keeps its entry, indexed ${ageText(indexedAt, now)} ago)`;
}

function summaryLines(outcomes: ServerIndexOutcome[], indexPath: string, kept: (server: string) => string): string[] {
  const indexed = outcomes.filter((outcome) => outcome.ok);
  const failed = outcomes.filter((outcome) => !outcome.ok);
  const tools = indexed.reduce((sum, outcome) => sum + (outcome.ok ? outcome.tools : 0), 0);
  // "of 1 server", not "of 1 servers": the noun agrees with the number it follows.
  const lines = [`Indexed ${indexed.length} of ${counted(outcomes.length, 'server')} (${counted(tools, 'tool')}) in ${indexPath}.`];
  if (failed.length > 0) {
    lines.push(`Failed (${failed.length}):`);
    for (const outcome of failed) if (!outcome.ok) lines.push(`  ${outcome.server}: ${outcome.error.split('\n')[0]}${kept(outcome.server)}`);
  }
  return lines;
}

export async function runIndex(options: GlobalOptions, command: IndexCommandOptions): Promise<number> {
  const logger = cliLogger(options.verbose);
  const discovery = await discover(options, logger);
  const permissions = permissionsFrom(options, discovery.toolPermissions);
  const servers = nameRecord<McpServerConfig>();
  for (const server of Object.values(discovery.servers)) {
    if (!server.disabled && isServerAllowed(permissions, server.name)) servers[server.name] = server.config;
  }
  const projectFiles = projectFilesOf(discovery.servers);
  const total = Object.keys(servers).length;
  if (total === 0) {
    writeListing('No enabled, allowed servers to index.');
    return 0;
  }
  const index = new ManifestIndex({ path: command.indexPath });
  writeListing(`Indexing ${total === 1 ? '1 server' : `${total} servers`}, ${Math.min(command.concurrency, total)} at a time…`);
  const outcomes = await indexServers({
    servers,
    projectFiles,
    index,
    concurrency: command.concurrency,
    connectTimeoutMs: command.timeoutMs,
    managerOptions: { logger },
    onServer: (outcome, done) => writeListing(progressLine(outcome, done, total)),
  });
  const now = Date.now();
  const kept = (server: string) => keptEntryText(index, server, servers[server]!, projectFiles[server], now);
  writeListing(summaryLines(outcomes, index.path, kept).join('\n'));
  return outcomes.every((outcome) => outcome.ok) ? 0 : 1;
}

/**
 * `index`: connect each enabled, allowed server once, a few at a time, record its manifest in the
 * index and close it, so search_mcp_tools knows every server's tools without starting them.
 * A line per server as it finishes, then a summary; exit code 1 when any server failed.
 */
import type { McpServerConfig } from '../../../machines/types.js';
import { quoted, terminalLine } from '../../../machines/control-characters.js';
import { nameRecord } from '../../../machines/name-record.js';
import { indexServers, type ServerIndexOutcome } from '../../manifest-index/index-servers.js';
import { isPastPromisedFreshness, ManifestIndex, ManifestIndexKeyUnreadable, projectFilesOf } from '../../manifest-index/index.js';
import { ageText, pastTtlText } from '../../tools/age-text.js';
import { isServerAllowed } from '../../tools/index.js';
import { silentLogger } from '../../logger.js';
import { cliLogger } from '../logger.js';
import { discover, discoveryOptions, hasErrors, permissionsFrom, type GlobalOptions } from '../options.js';
import { listedServers, noteConfigFiles } from '../config-file-notes.js';
import { locateConfigFiles } from '../../config/locate-config-files.js';
import { discoverMcpServers } from '../../config/discover.js';
import type { DiscoveredServer, DiscoveryResult } from '../../config/types.js';
import { writeError, writeListing } from '../terminal-text.js';
import { counted } from '../counted.js';
import { redact, secretsOf } from '../../redact.js';
import { explainFailure, type FailureExplanation } from '../failure-text.js';
import { serverFailureLines } from './doctor.js';
import { writeRefusal } from '../write-refusal.js';
import { loggerAbove, pendingServersLine } from '../pending-servers-line.js';
import { endIfInterrupted, endOnInterrupt } from '../cancel-on-interrupt.js';

export interface IndexCommandOptions {
  concurrency: number;
  /** The index file; default ~/.ai-zen/mcp-index.json. */
  indexPath?: string;
  /** `--timeout`: how long each server may take to connect. */
  timeoutMs?: number;
  /**
   * `--prune`: take out the entries of servers no config names any more (the user's and this
   * project's, and the `--config` files indexed from that are still there). Asked for, not done on
   * every run: a program that passes its own servers files them by name in the same index, and no
   * config of the CLI names them.
   */
  prune?: boolean;
}

type FailedOutcome = Extract<ServerIndexOutcome, { ok: false }>;

function progressLine(outcome: ServerIndexOutcome, done: number, total: number, explain: (outcome: FailedOutcome) => FailureExplanation): string {
  const position = `[${String(done).padStart(String(total).length)}/${total}]`;
  const seconds = `${(outcome.ms / 1000).toFixed(1)} s`;
  return outcome.ok
    ? `${position} ${outcome.server}: ${counted(outcome.tools, 'tool')} (${seconds})`
    : `${position} ${outcome.server}: failed (${seconds}): ${explain(outcome).message}`;
}

/** What search keeps answering from for a server whose indexing failed: its earlier entry, with its age and whether it is past its ttl. */
function keptEntryText(index: ManifestIndex, server: string, config: McpServerConfig, projectFile: string | undefined, now: number): string {
  const lookup = index.lookup(server, config, projectFile);
  if (lookup.status !== 'fresh') return '';
  const { indexedAt } = lookup.entry;
  return isPastPromisedFreshness(lookup.entry, now) ? ` (search keeps its entry, stale: ${pastTtlText(indexedAt, now)})` : ` (search keeps its entry, indexed ${ageText(indexedAt, now)} ago)`;
}

function summaryLines(outcomes: ServerIndexOutcome[], indexPath: string, kept: (server: string) => string, explain: (outcome: FailedOutcome) => FailureExplanation): string[] {
  const indexed = outcomes.filter((outcome) => outcome.ok);
  const failed = outcomes.filter((outcome) => !outcome.ok);
  const tools = indexed.reduce((sum, outcome) => sum + (outcome.ok ? outcome.tools : 0), 0);
  // "of 1 server", not "of 1 servers": the noun agrees with the number it follows.
  const lines = [`Indexed ${indexed.length} of ${counted(outcomes.length, 'server')} (${counted(tools, 'tool')}) in ${indexPath}.`];
  if (failed.length > 0) {
    lines.push(`Failed (${failed.length}):`);
    for (const outcome of failed) if (!outcome.ok) lines.push(...serverFailureLines(outcome.server, explain(outcome), '  ', kept(outcome.server)));
  }
  return lines;
}

/**
 * The summary when the index could not be used or written: once, naming the file and what to
 * do, rather than as a failure of each server (the servers are fine). Undefined for any other error.
 */
function unsavedText(error: unknown, indexPath: string, done: ServerIndexOutcome[]): string | undefined {
  if (error instanceof ManifestIndexKeyUnreadable) return `Indexed nothing: ${error.message}`;
  const refusal = writeRefusal(error);
  if (refusal === undefined) return undefined;
  const indexed = done.filter((outcome) => outcome.ok).length;
  const again = `${refusal.remedy}, then run \`mcp-statechart index\` again.`;
  if (done.length === 0) return `Indexed nothing: could not write the manifest index ${indexPath}: ${refusal.reason}. Nothing was changed.\n${again}`;
  return [
    `Indexed ${indexed} of ${counted(done.length, 'server')}, but could not write the manifest index ${indexPath}: ${refusal.reason}.`,
    `What this run found is not all saved; search answers from what the file held. ${again}`,
  ].join('\n');
}

/**
 * `--prune`: takes out the entries of servers taken out of every config (gone from the user's
 * file and from every `--config` file indexed from, filed by name, or from this project's
 * `.mcp.json`) and of projects whose config file is gone; says what it took out. With `--config`,
 * its files' servers were just noted, and the user's and project's files are read as well: what
 * they name stays. Only when every file read loaded whole: with a file or entry that did not load,
 * a server missing from the result may be in a config all the same. Disabled servers and those
 * awaiting approval are listed by discovery, so they keep their entries.
 */
async function prune(index: ManifestIndex, options: GlobalOptions, discovery: DiscoveryResult): Promise<void> {
  if (hasErrors(discovery)) return;
  const defaultOptions = discoveryOptions({ ...options, config: [] }, silentLogger, false);
  const defaults = options.config.length > 0 ? await discoverMcpServers(defaultOptions) : discovery;
  if (hasErrors(defaults)) return;
  const named = new Set(listedServers(defaults).map((server) => server.name));
  const files = await locateConfigFiles(defaultOptions);
  const forgotten = index.forgetUnnamed(named, files.find((file) => file.scope === 'project')?.path);
  if (forgotten.length > 0) writeListing(`Took out of the index ${counted(forgotten.length, 'server')} no config names any more: ${namesOf(forgotten)}.`);
  for (const { projectFile, servers } of index.forgetProjectsWithoutFile()) {
    writeListing(`Took out of the index ${counted(servers.length, 'server')} of a project whose config file is gone: ${namesOf(servers)} (${terminalLine(projectFile)}).`);
  }
}

function namesOf(servers: readonly string[]): string {
  return servers.map((name) => quoted(name)).join(', ');
}

export async function runIndex(options: GlobalOptions, command: IndexCommandOptions): Promise<number> {
  const pending = pendingServersLine();
  const logger = loggerAbove(cliLogger(options.verbose), pending);
  const discovery = await endIfInterrupted(discover(options, logger), false);
  const permissions = permissionsFrom(options, discovery.toolPermissions);
  const servers = nameRecord<McpServerConfig>();
  for (const server of Object.values(discovery.servers)) {
    if (!server.disabled && isServerAllowed(permissions, server.name)) servers[server.name] = server.config;
  }
  const projectFiles = projectFilesOf(discovery.servers);
  const total = Object.keys(servers).length;
  const index = new ManifestIndex({ path: command.indexPath, logger });
  noteConfigFiles(index, options, discovery);
  if (command.prune === true) await prune(index, options, discovery);
  if (total === 0) {
    writeListing('No enabled, allowed servers to index.');
    // What was taken out is written all the same.
    await index.flush();
    return 0;
  }
  // Doctor's words for the same failure: what failed, and what to do.
  const explain = (outcome: FailedOutcome): FailureExplanation => {
    if (outcome.cause === undefined) return { message: outcome.error };
    const explanation = explainFailure(outcome.server, outcome.cause, discovery.servers[outcome.server]);
    // Whatever was thrown, the entry's env and header values stay out of it.
    return { ...explanation, message: redact(explanation.message, secretsOf(servers[outcome.server]!)) };
  };
  writeListing(`Indexing ${total === 1 ? '1 server' : `${total} servers`}, ${Math.min(command.concurrency, total)} at a time…`);
  const done: ServerIndexOutcome[] = [];
  let outcomes: ServerIndexOutcome[];
  const forgetInterrupt = endOnInterrupt(pending, index);
  try {
    outcomes = await indexServers({
      servers,
      projectFiles,
      index,
      concurrency: command.concurrency,
      connectTimeoutMs: command.timeoutMs,
      managerOptions: { logger },
      onStart: (server) => pending.started(server),
      onServer: (outcome, count) => {
        done.push(outcome);
        pending.ended(outcome.server);
        pending.above(() => writeListing(progressLine(outcome, count, total, explain)));
      },
    });
  } catch (error) {
    forgetInterrupt();
    pending.finish();
    const unsaved = unsavedText(error, index.path, done);
    if (unsaved === undefined) throw error;
    writeListing(unsaved);
    return 1;
  }
  forgetInterrupt();
  pending.finish();
  const now = Date.now();
  const kept = (server: string) => keptEntryText(index, server, servers[server]!, projectFiles[server], now);
  writeListing(summaryLines(outcomes, index.path, kept, explain).join('\n'));
  return outcomes.every((outcome) => outcome.ok) ? 0 : 1;
}

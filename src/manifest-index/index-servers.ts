/**
 * Fills or refreshes the index: each server connected once, listed, recorded and closed, a few
 * at a time. What `mcp-statechart index` runs.
 */
import type { McpServerConfig } from '../../machines/types.js';
import { McpConnectionManager, type McpConnectionManagerOptions } from '../manager.js';
import { redact, secretsOf } from '../redact.js';
import type { ManifestIndex } from './manifest-index.js';
import { errorMessage } from '../../machines/to-error.js';

export interface IndexServersOptions {
  /** The servers to index (enabled and allowed: the caller decides). */
  servers: Record<string, McpServerConfig>;
  /** The `.mcp.json` of each project server among them (`projectFilesOf` of discovery's servers): its entry is its project's own. */
  projectFiles?: Record<string, string>;
  index: ManifestIndex;
  /** Servers connecting at the same time. Default 4. */
  concurrency?: number;
  /** How long one server may take to start and answer `initialize`. Default 30 s. */
  connectTimeoutMs?: number;
  managerOptions?: McpConnectionManagerOptions;
  /** Called as each server starts connecting (at most `concurrency` at a time). */
  onStart?: (server: string) => void;
  /** Called as each server is done, in the order they finish. */
  onServer?: (outcome: ServerIndexOutcome, done: number, total: number) => void;
}

export type ServerIndexOutcome =
  | { server: string; ok: true; tools: number; ms: number }
  /** `cause`: what was thrown (an `McpServerError` when connecting failed), for a caller that explains it; absent when the index refused the manifest. */
  | { server: string; ok: false; error: string; ms: number; cause?: unknown };

/**
 * Resolves once the index file holds every manifest recorded; rejects when it could not be written.
 *
 * @example
 * ```ts
 * import { discoverMcpServers, enabledServers, ManifestIndex } from 'mcp-statechart';
 * import { indexServers } from 'mcp-statechart/config';
 *
 * const { servers } = await discoverMcpServers();
 * const index = new ManifestIndex();
 * const outcomes = await indexServers({ servers: enabledServers(servers), index, concurrency: 4 });
 * console.log(outcomes.filter((outcome) => outcome.ok).length, 'servers indexed');
 * ```
 */
export async function indexServers(options: IndexServersOptions): Promise<ServerIndexOutcome[]> {
  const names = Object.keys(options.servers);
  // Reads (or makes) the index's key before any server starts: a key file that cannot be read
  // would otherwise fail every server the same way, each after connecting it.
  if (names.length > 0) options.index.fingerprint(options.servers[names[0]!]!);
  const manager = new McpConnectionManager(options.managerOptions);
  const outcomes: ServerIndexOutcome[] = [];
  // Once, with no retries: a server that cannot start is reported, not waited for.
  const connectOptions = { autoReconnect: false, maxRetries: 0, connectTimeoutMs: options.connectTimeoutMs ?? 30_000 };
  let next = 0;

  const indexOne = async (server: string): Promise<ServerIndexOutcome> => {
    const started = Date.now();
    options.onStart?.(server);
    try {
      const manifest = await manager.connect(server, options.servers[server]!, connectOptions);
      const instructions = manager.getClient(server)?.getInstructions();
      const recorded = options.index.record(server, options.servers[server]!, manifest, options.projectFiles?.[server], { instructions });
      if (!recorded.stored) return { server, ok: false, error: `not indexed: ${recorded.reason}`, ms: Date.now() - started };
      return { server, ok: true, tools: manifest.tools.length, ms: Date.now() - started };
    } catch (error) {
      // The connection layer already redacts its errors; this also covers whatever else could be thrown.
      const message = redact(errorMessage(error), secretsOf(options.servers[server]!));
      return { server, ok: false, error: message, ms: Date.now() - started, cause: error };
    } finally {
      await manager.disconnect(server);
    }
  };

  const worker = async () => {
    while (next < names.length) {
      const outcome = await indexOne(names[next++]!);
      outcomes.push(outcome);
      options.onServer?.(outcome, outcomes.length, names.length);
    }
  };
  try {
    const workers = Math.max(1, Math.min(options.concurrency ?? 4, names.length));
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    await manager.dispose();
  }
  await options.index.flush();
  return outcomes;
}

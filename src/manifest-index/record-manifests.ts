/**
 * Keeps the index up to date from the outside of the manager: every connect and every
 * list_changed refresh of a server whose definition we know is recorded. While a server stays
 * connected, its tools are listed again in the background once the entry passes the `ttlMs` the
 * server gave the list, so the entry other processes read never goes stale because the list
 * merely stayed the same. A server not connected is never started for it.
 */
import type { McpServerConfig } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import type { McpConnectionManager } from '../manager.js';
import type { Logger } from '../logger.js';
import type { ManifestIndex } from './manifest-index.js';
import type { McpServerManifest } from '../../machines/types.js';
import { Deadline } from '../connection/deadline.js';
import { listManifest } from '../connection/manifest.js';
import { silentLogger } from '../logger.js';
import { redact, secretsOf } from '../redact.js';
import { MAX_INDEX_TTL_MS } from './entry-expiry.js';
import { errorMessage } from '../../machines/to-error.js';

export type RecordingManager = Pick<McpConnectionManager, 'on' | 'getManifest'> & Partial<Pick<McpConnectionManager, 'eras' | 'getClient'>>;

/** A background listing of a connected server's tools gets this long, all pages together. */
const RELIST_TIMEOUT_MS = 30_000;

interface Recorder {
  /** The latest definitions the manager was given; a server is recorded under its current one. */
  configs: Record<string, McpServerConfig>;
  /** The `.mcp.json` of each project server among them. */
  projectFiles: Record<string, string>;
  stop: () => void;
}

export interface RecordManifestsOptions {
  /** Told when a manifest could not be recorded. */
  logger?: Logger;
  /** The `.mcp.json` of each project server (`projectFileOf`): its entry is its project's own. */
  projectFiles?: Record<string, string>;
}

/**
 * One recorder per manager and index file: loader tools rebuilt after a config change (as `serve`
 * does) update its definitions instead of adding a second recorder that would file a new
 * manifest under an old definition.
 */
const recorders = new WeakMap<RecordingManager, Map<string, Recorder>>();

/**
 * Returns a function that stops the recording.
 *
 * @example
 * ```ts
 * import { McpConnectionManager, ManifestIndex, type McpServerConfig } from 'mcp-statechart';
 * import { recordManifests } from 'mcp-statechart/config';
 *
 * const configs: Record<string, McpServerConfig> = { notes: { command: 'notes-server' } };
 * const manager = new McpConnectionManager();
 * const stopRecording = recordManifests(manager, new ManifestIndex(), configs); // each connect's manifest goes into the index
 * stopRecording();
 * ```
 */
export function recordManifests(
  manager: RecordingManager,
  index: ManifestIndex,
  configs: Record<string, McpServerConfig>,
  options: RecordManifestsOptions = {},
): () => void {
  const { logger } = options;
  const projectFiles = options.projectFiles ?? nameRecord<string>();
  const byPath = recorders.get(manager) ?? new Map<string, Recorder>();
  recorders.set(manager, byPath);
  const existing = byPath.get(index.path);
  if (existing) {
    // A rebuild after a config change: merged into a new record, the caller's left as it is.
    existing.configs = nameRecord(existing.configs, configs);
    const kept = nameRecord(existing.projectFiles);
    // A server that moved to the user's config is no longer its project's.
    for (const server of Object.keys(configs)) delete kept[server];
    existing.projectFiles = nameRecord(kept, projectFiles);
    return existing.stop;
  }
  // The caller's record, only read: a copy of 10,000 definitions cost ~9 ms of every start.
  const recorder: Recorder = { configs, projectFiles, stop: () => {} };
  const record = (server: string, manifest = manager.getManifest(server)) => {
    if (!manifest || !Object.hasOwn(recorder.configs, server)) return;
    const failed = (error: Error) => logger?.warn(`Could not record the manifest of MCP server "${server}" in ${index.path}: ${error.message}`);
    // A full disk or a read-only home must not break the connection that just worked: neither
    // now (the fingerprint's key cannot be made) nor when the write runs.
    try {
      const config = recorder.configs[server]!;
      const outcome = index.record(server, config, manifest, recorder.projectFiles[server], manager.eras?.learnt(server, config));
      if (!outcome.stored) logger?.warn(`The manifest of MCP server "${server}" is not kept in ${index.path}: ${outcome.reason}.`);
      else relistAfterTtl(server, manifest);
      index.flush().catch(failed);
    } catch (error) {
      failed(error as Error);
    }
  };
  const relistTimers = new Map<string, NodeJS.Timeout>();
  const cancelRelist = (server: string) => {
    clearTimeout(relistTimers.get(server));
    relistTimers.delete(server);
  };
  // A list with no ttlMs, or 0 ("stale at once"), is not polled: as the connection itself does (src/connection/list-expiry.ts).
  const relistAfterTtl = (server: string, manifest: McpServerManifest) => {
    cancelRelist(server);
    const ttlMs = manifest.freshness?.tools?.ttlMs;
    if (ttlMs === undefined || ttlMs <= 0 || !manager.getClient) return;
    const timer = setTimeout(() => {
      relistTimers.delete(server);
      void relist(server);
    }, Math.min(ttlMs, MAX_INDEX_TTL_MS));
    timer.unref();
    relistTimers.set(server, timer);
  };
  const relist = async (server: string) => {
    const client = manager.getClient?.(server);
    const base = manager.getManifest(server);
    if (!client || !base || !Object.hasOwn(recorder.configs, server)) return;
    const deadline = new Deadline(RELIST_TIMEOUT_MS, () => new Error(`the listing did not finish within ${RELIST_TIMEOUT_MS} ms`));
    try {
      record(server, await listManifest({ server, client, logger: logger ?? silentLogger, deadline }, base, ['tools']));
    } catch (error) {
      logger?.warn(`Could not list the tools of MCP server "${server}" again for ${index.path}: ${redact(errorMessage(error), secretsOf(recorder.configs[server]!))}`);
    } finally {
      deadline.dispose();
    }
  };
  const stopStates = manager.on('mcp.stateChanged', (event) => {
    if (event.state === 'connected') record(event.server);
    else cancelRelist(event.server);
  });
  const stopManifests = manager.on('mcp.manifestChanged', (event) => record(event.server, event.manifest));
  // The era recorded with a server's manifest spares the next process the probe (src/connection/era-memo.ts).
  const stopEras = manager.eras?.addStore({
    recall: (server, config) => {
      try {
        return index.recallEra(server, config, recorder.projectFiles[server]);
      } catch {
        // An index that cannot be read (no key can be made) only costs a probe.
        return undefined;
      }
    },
    forget: (server, config) => {
      try {
        index.forgetEra(server, config, recorder.projectFiles[server]);
        index.flush().catch(() => {});
      } catch {
        // An index that cannot be read or written only costs the next process a probe.
      }
    },
  });
  recorder.stop = () => {
    for (const server of [...relistTimers.keys()]) cancelRelist(server);
    stopStates();
    stopManifests();
    stopEras?.();
    byPath.delete(index.path);
  };
  byPath.set(index.path, recorder);
  return recorder.stop;
}

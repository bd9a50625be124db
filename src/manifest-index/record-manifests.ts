/**
 * Keeps the index up to date from the outside of the manager: every connect and every
 * list_changed refresh of a server whose definition we know is recorded. While a server stays
 * connected, its entry is written afresh once it passes the `ttlMs` the server gave the list (the
 * connection re-reads the list then), so the entry other processes read never goes stale because
 * the list merely stayed the same. A server not connected is never started for it.
 */
import type { McpServerConfig } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import type { McpConnectionManager } from '../manager.js';
import type { Logger } from '../logger.js';
import type { ManifestIndex } from './manifest-index.js';
import type { McpServerManifest } from '../../machines/types.js';
import { MAX_INDEX_TTL_MS } from './entry-expiry.js';
import { MIN_RELIST_MS } from '../connection/list-expiry.js';
import { quoted } from '../../machines/control-characters.js';

/** The least time between two index writes for one server's list changes. */
export const INDEX_WRITE_INTERVAL_MS = 1_000;

/** `getClient`, when there, gives each entry the server's instructions; `eras`, its era. */
export type RecordingManager = Pick<McpConnectionManager, 'on' | 'getManifest'> & Partial<Pick<McpConnectionManager, 'eras' | 'getClient'>>;

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
  /** The `.mcp.json` of each project server (`projectFilesOf` of discovery's servers): its entry is its project's own. */
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
    const failed = (error: Error) => logger?.warn(`Could not record the manifest of MCP server ${quoted(server)} in ${index.path}: ${error.message}`);
    // A full disk or a read-only home must not break the connection that just worked: neither
    // now (the fingerprint's key cannot be made) nor when the write runs.
    try {
      const config = recorder.configs[server]!;
      const outcome = index.record(server, config, manifest, recorder.projectFiles[server], {
        era: manager.eras?.learnt(server, config),
        instructions: manager.getClient?.(server)?.getInstructions(),
      });
      if (!outcome.stored) logger?.warn(`The manifest of MCP server ${quoted(server)} is not kept in ${index.path}: ${outcome.reason}.`);
      else refreshAfterTtl(server, manifest);
      index.flush().catch(failed);
    } catch (error) {
      failed(error as Error);
    }
  };
  const refreshTimers = new Map<string, NodeJS.Timeout>();
  const cancelRefresh = (server: string) => {
    clearTimeout(refreshTimers.get(server));
    refreshTimers.delete(server);
  };
  // The connection re-reads a list once its ttlMs is up and reports a change as mcp.manifestChanged
  // (src/connection/list-expiry.ts): past the ttl, the manifest the manager holds is the one just
  // read, so the entry is written afresh from it rather than listed a second time. A list with no
  // ttlMs, or 0 ("stale at once"), is not re-read by the connection, nor refreshed here.
  const refreshAfterTtl = (server: string, manifest: McpServerManifest) => {
    cancelRefresh(server);
    const ttlMs = manifest.freshness?.tools?.ttlMs;
    if (ttlMs === undefined || ttlMs <= 0) return;
    const timer = setTimeout(() => {
      refreshTimers.delete(server);
      record(server);
    }, Math.min(Math.max(ttlMs, MIN_RELIST_MS), MAX_INDEX_TTL_MS));
    timer.unref();
    refreshTimers.set(server, timer);
  };
  const stopStates = manager.on('mcp.stateChanged', (event) => {
    if (event.state === 'connected') record(event.server);
    else cancelRefresh(event.server);
  });
  // A server that changes its lists on every call (one more tool each time) would have the whole
  // index rewritten each time: its changes are written at most every INDEX_WRITE_INTERVAL_MS, the last one always.
  const lastWrites = new Map<string, number>();
  const laterWrites = new Map<string, NodeJS.Timeout>();
  const writeLatest = (server: string) => {
    laterWrites.delete(server);
    lastWrites.set(server, Date.now());
    record(server);
  };
  const stopManifests = manager.on('mcp.manifestChanged', (event) => {
    if (laterWrites.has(event.server)) return;
    const wait = (lastWrites.get(event.server) ?? -Infinity) + INDEX_WRITE_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      lastWrites.set(event.server, Date.now());
      return record(event.server, event.manifest);
    }
    laterWrites.set(event.server, setTimeout(() => writeLatest(event.server), wait).unref());
  });
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
    for (const server of [...refreshTimers.keys()]) cancelRefresh(server);
    for (const [server, timer] of laterWrites) {
      clearTimeout(timer);
      writeLatest(server);
    }
    stopStates();
    stopManifests();
    stopEras?.();
    byPath.delete(index.path);
  };
  byPath.set(index.path, recorder);
  return recorder.stop;
}

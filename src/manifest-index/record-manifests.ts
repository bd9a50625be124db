/**
 * Keeps the index up to date from the outside of the manager: every connect and every
 * list_changed refresh of a server whose definition we know is recorded.
 */
import type { McpServerConfig } from '../../machines/types.js';
import type { McpConnectionManager } from '../manager.js';
import type { Logger } from '../logger.js';
import type { ManifestIndex } from './manifest-index.js';

export type RecordingManager = Pick<McpConnectionManager, 'on' | 'getManifest'>;

/** Returns a function that stops the recording. */
export function recordManifests(
  manager: RecordingManager,
  index: ManifestIndex,
  configs: Record<string, McpServerConfig>,
  logger?: Logger,
): () => void {
  const record = (server: string, manifest = manager.getManifest(server)) => {
    if (!manifest || !Object.hasOwn(configs, server)) return;
    try {
      index.record(server, configs[server]!, manifest);
    } catch (error) {
      // A full disk or a read-only home must not break the connection that just worked.
      logger?.warn(`Could not record the manifest of MCP server "${server}" in ${index.path}: ${(error as Error).message}`);
    }
  };
  const stopStates = manager.on('mcp.stateChanged', (event) => {
    if (event.state === 'connected') record(event.server);
  });
  const stopManifests = manager.on('mcp.manifestChanged', (event) => record(event.server, event.manifest));
  return () => {
    stopStates();
    stopManifests();
  };
}

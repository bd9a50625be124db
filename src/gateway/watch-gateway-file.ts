/**
 * The gateway file, re-read when it changes, as the MCP config is (src/config/watch.ts): its
 * folder is watched (editors save by renaming a temp file over the old one) for events naming the
 * file (src/config/file-events.ts: an audit log beside it costs nothing), changes are debounced,
 * one read runs at a time. A file that no longer loads keeps the rules in force and
 * says why: a half-saved file must not lock everyone out, nor let anyone in.
 */
import path from 'node:path';
import { errorMessage } from '../../machines/to-error.js';
import { watchFileEvents } from '../config/file-events.js';
import { silentLogger, type Logger } from '../logger.js';
import { loadGatewayFile, type GatewayConfig } from './gateway-file.js';

export const DEFAULT_GATEWAY_WATCH_DEBOUNCE_MS = 100;

export interface GatewayFileWatcher {
  /** The rules in force: the last version of the file that loaded. */
  current(): GatewayConfig;
  close(): Promise<void>;
}

export interface WatchGatewayFileOptions {
  logger?: Logger;
  debounceMs?: number;
  /** Called with each new version that loads (not with one that fails), and the version it replaced. */
  onChange?: (config: GatewayConfig, previous: GatewayConfig) => void;
}

/** Loads the file (rejecting with every problem when it does not load), then follows its changes. */
export async function watchGatewayFile(file: string, options: WatchGatewayFileOptions = {}): Promise<GatewayFileWatcher> {
  const logger = options.logger ?? silentLogger;
  const debounceMs = options.debounceMs ?? DEFAULT_GATEWAY_WATCH_DEBOUNCE_MS;
  const absolute = path.resolve(file);
  const first = await loadGatewayFile(absolute);
  if (!first.ok) throw new Error(first.problems.join('\n'));
  let config = first.config;

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let reading: Promise<void> | undefined;
  let readAgain = false;

  const reread = (): Promise<void> => {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      try {
        do {
          readAgain = false;
          const result = await loadGatewayFile(absolute);
          if (closed) return;
          if (!result.ok) {
            // In the message: serve's stderr shows messages only, and the operator must learn what to fix (problems never quote a value).
            logger.warn(`kept the gateway rules in force until ${absolute} loads again: ${result.problems.join('; ')}`, { problems: result.problems });
            continue;
          }
          const previous = config;
          config = result.config;
          try {
            options.onChange?.(config, previous);
          } catch (error) {
            logger.error('gateway file watcher: onChange threw', { error: errorMessage(error) });
          }
        } while (readAgain && !closed);
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  };

  const watcher = watchFileEvents(
    [absolute],
    () => {
      if (closed) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        void reread();
      }, debounceMs);
    },
    // In the message: serve's stderr shows messages only. Node closes a watcher once it fails.
    (error) =>
      logger.warn(`gateway file watcher failed (${errorMessage(error)}): edits to ${absolute} are no longer followed; the rules in force stay until serve restarts`, {
        error: errorMessage(error),
      }),
  );

  return {
    current: () => config,
    async close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
      await reading;
    },
  };
}

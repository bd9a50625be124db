/** Re-discovery when a config file changes, and the glue that feeds it into a connection manager. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { watch } from 'chokidar';
import { silentLogger, type Logger } from '../logger.js';
import { discoverIn } from './discover.js';
import { watchFileEvents } from './file-events.js';
import { enabledServers } from './enabled-servers.js';
import { locateConfigFiles } from './locate-config-files.js';
import type {
  ConfigWatcher,
  ConfigurableManager,
  DiscoveryResult,
  WatchMcpServersOptions,
} from './types.js';
import { errorMessage } from '../../machines/to-error.js';

export const DEFAULT_WATCH_DEBOUNCE_MS = 100;

/**
 * Calls `onChange` with a fresh discovery result after either config file is created, changed or
 * deleted (debounced). Resolves once the watcher is ready, so edits made after that are seen.
 *
 * The files are located once, at start: later re-reads look at exactly the files being watched,
 * even if a nearer `.mcp.json` appears in the meantime.
 *
 * @example
 * ```ts
 * import { watchMcpServers } from 'mcp-statechart/config';
 *
 * const watcher = await watchMcpServers({ projectRoot: process.cwd() }, ({ servers, problems }) => {
 *   console.log(Object.keys(servers), problems.length);
 * });
 * await watcher.close();
 * ```
 */
export async function watchMcpServers(
  options: WatchMcpServersOptions,
  onChange: (result: DiscoveryResult) => void,
): Promise<ConfigWatcher> {
  const logger = options.logger ?? silentLogger;
  const debounceMs = options.debounceMs ?? DEFAULT_WATCH_DEBOUNCE_MS;
  const files = await locateConfigFiles(options);
  const watchedFiles = new Set(files.map((file) => file.path));
  // Folders, not files: editors save by writing a temp file and renaming it over the old one, and
  // a file that does not exist yet cannot be watched, but its folder can. A folder that exists is
  // watched for events naming its config file alone (see file-events.ts).
  const folders = [...new Set(files.map((file) => path.dirname(file.path)))];
  const existing = await Promise.all(folders.map(async (folder) => (await nearestExistingFolder(folder)) === folder));
  const missing = folders.filter((_, index) => !existing[index]);
  const missingFiles = new Set([...watchedFiles].filter((file) => missing.includes(path.dirname(file))));
  // A folder that does not exist yet (no ~/.ai-zen) is watched through its nearest existing
  // ancestor: chokidar given a missing path emits 'ready' before the other paths are watched.
  const roots = outermost(await Promise.all(missing.map(nearestExistingFolder)));
  const watcher =
    roots.length === 0
      ? undefined
      : watch(roots, {
          ignoreInitial: true,
          // Only the path down to each config file is ever entered, whatever the depth (see `ignored`).
          ignored: (candidate) => !isOnTheWay(path.resolve(candidate), missingFiles, missing),
        });

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let reading: Promise<void> | undefined;
  let readAgain = false;

  const deliver = (result: DiscoveryResult) => {
    try {
      onChange(result);
    } catch (error) {
      // A throwing listener must not stop the watching.
      logger.error('mcp config watcher: onChange threw', { error: errorMessage(error) });
    }
  };

  // One read at a time; an event during a read asks for one more, so the last result is never stale.
  const reread = (): Promise<void> => {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      try {
        do {
          readAgain = false;
          // Project trust applies on every read, exactly as in discovery: an edited definition needs approval again.
          const result = await discoverIn(files, options);
          if (closed) return;
          deliver(result);
        } while (readAgain && !closed);
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  };

  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void reread();
    }, debounceMs);
  };

  // In the message: the CLI's stderr shows messages only.
  const warn = (error: unknown) =>
    logger.warn(`MCP config watcher failed (${errorMessage(error)}): edits to the MCP config files may not be seen until this process restarts`, { error: errorMessage(error) });
  const fileEvents = watchFileEvents(
    [...watchedFiles].filter((file) => !missingFiles.has(file)),
    schedule,
    warn,
  );
  if (watcher) {
    watcher.on('all', (_event, changed) => {
      if (watchedFiles.has(path.resolve(changed))) schedule();
    });
    watcher.on('error', warn);
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  if (options.emitInitial) await reread();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      fileEvents.close();
      await watcher?.close();
      await reading;
    },
  };
}

/** A config file, one of its folders, or a folder on the way down to one. */
function isOnTheWay(candidate: string, files: ReadonlySet<string>, folders: readonly string[]): boolean {
  if (files.has(candidate)) return true;
  return folders.some((folder) => folder === candidate || isInside(folder, candidate));
}

function isInside(child: string, ancestor: string): boolean {
  const relative = path.relative(ancestor, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

async function nearestExistingFolder(folder: string): Promise<string> {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const stats = await fs.stat(dir).catch(() => undefined);
    if (stats?.isDirectory() || path.dirname(dir) === dir) return dir;
  }
}

/** Drops folders inside another one of the list: watching the outer one already covers them. */
function outermost(dirs: readonly string[]): string[] {
  const unique = [...new Set(dirs)];
  return unique.filter((dir) => !unique.some((other) => isInside(dir, other)));
}

/**
 * Keeps `manager` configured with the enabled servers: once at start, then after every change.
 *
 * One exception, so a half-saved file does not disconnect everything it defines: when a file that
 * loaded before now fails as a whole (invalid JSON, unreadable), the current set is kept and a
 * warning logged until the file is fixed or removed.
 *
 * @example
 * ```ts
 * import { McpConnectionManager } from 'mcp-statechart';
 * import { watchIntoManager } from 'mcp-statechart/config';
 *
 * const manager = new McpConnectionManager();
 * const watcher = await watchIntoManager(manager, { projectRoot: process.cwd() }); // configures it now and on every change
 * await watcher.close();
 * ```
 */
export async function watchIntoManager(
  manager: ConfigurableManager,
  options: WatchMcpServersOptions = {},
): Promise<ConfigWatcher> {
  const logger = options.logger ?? silentLogger;
  const apply = holdWhileFilesBreak((result) => manager.configure(enabledServers(result.servers)), logger);
  return watchMcpServers({ emitInitial: true, ...options }, apply);
}

/**
 * Wraps a re-read listener so that a half-saved file does not take away everything it defines:
 * when a file that loaded before now fails as a whole (invalid JSON, unreadable), `onChange` is
 * not called and a warning is logged, until the file loads again or is removed. `before`: the
 * result already in use, if any; without it the first result is taken as it is.
 */
export function holdWhileFilesBreak(
  onChange: (result: DiscoveryResult) => void,
  logger: Logger,
  before?: DiscoveryResult,
): (result: DiscoveryResult) => void {
  let brokenBefore: ReadonlySet<string> | undefined = before && filesThatFailedWhole(before);
  return (result) => {
    const broken = filesThatFailedWhole(result);
    const newlyBroken = brokenBefore ? [...broken].filter((file) => !brokenBefore?.has(file)) : [];
    if (newlyBroken.length > 0) {
      logger.warn(`mcp config: kept the current servers until ${newlyBroken.join(', ')} loads again`);
      return;
    }
    brokenBefore = broken;
    onChange(result);
  };
}

/** Files with an error that is not about one server: nothing in them was loaded. */
export function filesThatFailedWhole(result: DiscoveryResult): Set<string> {
  return new Set(
    result.problems.filter((problem) => problem.severity === 'error' && problem.server === undefined).map((p) => p.file),
  );
}

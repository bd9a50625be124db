/** Makes the file watchers of src/ fail on demand: every `fs.watch` started while it is set up is kept, so a test can emit an error on them. */
import fsSync, { type FSWatcher } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { vi } from 'vitest';

export function failingWatches(): { fail(error: Error): void; restore(): void } {
  const started: FSWatcher[] = [];
  const original = fsSync.watch.bind(fsSync) as (...args: unknown[]) => FSWatcher;
  vi.spyOn(fsSync, 'watch').mockImplementation(((...args: unknown[]) => {
    const watcher = original(...args);
    started.push(watcher);
    return watcher;
  }) as typeof fsSync.watch);
  // Modules that imported node:fs by name see the spy too.
  syncBuiltinESMExports();
  return {
    fail: (error) => {
      for (const watcher of started) watcher.emit('error', error);
    },
    restore: () => {
      vi.restoreAllMocks();
      syncBuiltinESMExports();
    },
  };
}

/** What the operating system's error for too many watches reads like. */
export const TOO_MANY_WATCHES = Object.assign(new Error('ENOSPC: System limit for number of file watchers reached, watch'), { code: 'ENOSPC' });

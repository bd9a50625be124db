/**
 * Events for a few named files, from one native watch on each file's folder (`fs.watch`, which
 * names the entry that changed): a write, a rename over the file (the way editors save), its
 * creation, its removal. Any other entry of the folder costs one name compared. chokidar, given
 * the folder, reads the whole folder again after every event in it: a busy file beside the config
 * (an audit log, say) kept each watching process at about a quarter of a core.
 *
 * The folders must exist (chokidar still watches the way down to a folder that does not).
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface FileEvents {
  close(): void;
}

export function watchFileEvents(files: Iterable<string>, onEvent: (file: string) => void, onError: (error: Error) => void): FileEvents {
  const namesByFolder = new Map<string, Set<string>>();
  for (const file of files) {
    const absolute = path.resolve(file);
    const folder = path.dirname(absolute);
    const names = namesByFolder.get(folder) ?? new Set<string>();
    names.add(path.basename(absolute));
    namesByFolder.set(folder, names);
  }
  const watchers: FSWatcher[] = [];
  const close = () => {
    for (const watcher of watchers.splice(0)) watcher.close();
  };
  try {
    for (const [folder, names] of namesByFolder) {
      const watcher = watch(folder, (_event, name) => {
        // A platform that does not name the entry: any of the files may have changed.
        if (name === null) for (const each of names) onEvent(path.join(folder, each));
        else if (names.has(name)) onEvent(path.join(folder, name));
      });
      watcher.on('error', onError);
      watchers.push(watcher);
    }
  } catch (error) {
    close();
    throw error;
  }
  return { close };
}

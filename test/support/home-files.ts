/**
 * What this project keeps under a home folder (`~/.ai-zen`: configs, the manifest index and its
 * key, approvals, OAuth logins; `~/.local/state/mcp-statechart`: the approvals' key), described
 * by path, size and modification time, so two looks at one home tell whether anything was
 * written there in between. Only names and sizes: no content is read.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** A home with more entries than this under `.ai-zen` is described by the first ones only. */
const MAX_ENTRIES = 10_000;

/** The folders this project writes under a home, relative to it. */
const PROJECT_FOLDERS = ['.ai-zen', path.join('.local', 'state', 'mcp-statechart')];

/** `relative path → "size mtime"` for every file and folder under the project's folders of `home`; empty when there is none. */
export function projectFilesUnder(home: string): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (folder: string) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (files.size >= MAX_ENTRIES) return;
      const file = path.join(folder, name);
      const stats = lstatSync(file, { throwIfNoEntry: false });
      if (!stats) continue;
      files.set(path.relative(home, file), `${stats.size} ${stats.mtimeMs}`);
      if (stats.isDirectory()) visit(file);
    }
  };
  for (const folder of PROJECT_FOLDERS) {
    const root = path.join(home, folder);
    const stats = lstatSync(root, { throwIfNoEntry: false });
    if (!stats) continue;
    files.set(folder, `${stats.size} ${stats.mtimeMs}`);
    if (stats.isDirectory()) visit(root);
  }
  return files;
}

/** The paths added, removed or changed between two descriptions of one home. */
export function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((file) => before.get(file) !== after.get(file)).sort();
}

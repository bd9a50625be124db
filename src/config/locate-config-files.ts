/** Which files discovery reads, in order: later files win a server-name clash. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigScope, DiscoverMcpServersOptions } from './types.js';
import { homeFolder } from './home-folder.js';

export interface ConfigFileLocation {
  /** Absolute. */
  path: string;
  scope: ConfigScope;
  /** A missing file is reported only when the user named it explicitly. */
  required: boolean;
}

export const PROJECT_CONFIG_NAME = '.mcp.json';

/** Throws when HOME is empty or relative (see home-folder.ts): pass `userConfigPath` then. */
export function defaultUserConfigPath(): string {
  return path.join(homeFolder(), '.ai-zen', 'mcp.json');
}

/** lstat, not stat: a dangling symlink or a symlink loop is "something there", which reading then reports. */
async function entryExists(target: string): Promise<boolean> {
  try {
    await fs.lstat(target);
    return true;
  } catch {
    return false;
  }
}

/**
 * The nearest `.mcp.json` from `startDir` upwards, up to a ceiling: the git root (a folder holding
 * `.git`, which may be a file in worktrees) or the home folder, whichever comes first. With
 * neither above it, only `startDir` itself is looked at: outside a repository and outside home,
 * the folders above (a shared temp folder, `/`) may hold a file anyone planted. When there is
 * none, the place where one would belong (the ceiling, else `startDir`), so a watcher can wait
 * for it to appear.
 */
export async function findProjectConfig(startDir: string, home: string = os.homedir()): Promise<{ path: string; found: boolean }> {
  return findNearest(startDir, PROJECT_CONFIG_NAME, home);
}

/**
 * The nearest `name` (a relative path: `.vscode/mcp.json`) from `startDir` upwards, up to the
 * same ceiling as `.mcp.json` (findProjectConfig): a client's project file is found from a subfolder too.
 */
export async function findNearest(startDir: string, name: string, home: string = os.homedir()): Promise<{ path: string; found: boolean }> {
  const start = path.resolve(startDir);
  const ceiling = await findCeiling(start, path.resolve(home));
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, name);
    if (await entryExists(candidate)) return { path: candidate, found: true };
    if (dir === ceiling) return { path: candidate, found: false };
  }
}

/** The git root or home folder at or above `start` (the nearer one), else `start` itself. */
async function findCeiling(start: string, home: string): Promise<string> {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (dir === home || (await entryExists(path.join(dir, '.git')))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

export async function locateConfigFiles(options: DiscoverMcpServersOptions): Promise<ConfigFileLocation[]> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (options.configPaths !== undefined) {
    // The same file named twice would clash with itself on every server.
    const unique = [...new Set(options.configPaths.map((file) => path.resolve(cwd, file)))];
    return unique.map((file) => ({ path: file, scope: 'explicit', required: true }));
  }
  const user = path.resolve(cwd, options.userConfigPath ?? defaultUserConfigPath());
  const project =
    options.projectRoot !== undefined
      ? path.join(path.resolve(cwd, options.projectRoot), PROJECT_CONFIG_NAME)
      : (await findProjectConfig(cwd)).path;
  // One file in both roles (a userConfigPath pointing at the project file) would clash with itself.
  if (user === project) return [{ path: project, scope: 'project', required: false }];
  return [
    { path: user, scope: 'user', required: false },
    { path: project, scope: 'project', required: false },
  ];
}

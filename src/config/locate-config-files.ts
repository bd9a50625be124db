/** Which files discovery reads, in order: later files win a server-name clash. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigScope, DiscoverMcpServersOptions } from './types.js';

export interface ConfigFileLocation {
  /** Absolute. */
  path: string;
  scope: ConfigScope;
  /** A missing file is reported only when the user named it explicitly. */
  required: boolean;
}

export const PROJECT_CONFIG_NAME = '.mcp.json';

export function defaultUserConfigPath(): string {
  return path.join(os.homedir(), '.ai-zen', 'mcp.json');
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
 * The nearest `.mcp.json` from `startDir` upwards, not above the git root (a folder holding `.git`,
 * which may be a file in worktrees) nor the filesystem root. When there is none, the place where one
 * would belong (the git root, else `startDir`), so a watcher can wait for it to appear.
 */
export async function findProjectConfig(startDir: string): Promise<{ path: string; found: boolean }> {
  let dir = path.resolve(startDir);
  for (;;) {
    const candidate = path.join(dir, PROJECT_CONFIG_NAME);
    if (await entryExists(candidate)) return { path: candidate, found: true };
    if (await entryExists(path.join(dir, '.git'))) return { path: candidate, found: false };
    const parent = path.dirname(dir);
    if (parent === dir) return { path: path.join(path.resolve(startDir), PROJECT_CONFIG_NAME), found: false };
    dir = parent;
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

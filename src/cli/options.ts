import { resolve } from 'node:path';
import { discoverMcpServers, type DiscoveryResult } from '../config/index.js';
import type { Logger } from '../logger.js';

/** The flags every command shares. */
export interface GlobalOptions {
  config: string[];
  project?: string;
  allow: string[];
  deny: string[];
  verbose: boolean;
}

/** `--config` replaces discovery; otherwise the user file and the project's `.mcp.json`. */
export function discover(options: GlobalOptions, logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<DiscoveryResult> {
  return discoverMcpServers({
    configPaths: options.config.length > 0 ? options.config.map((file) => resolve(file)) : undefined,
    projectRoot: options.project ? resolve(options.project) : undefined,
    env,
    logger,
  });
}

export function permissionsFrom(options: GlobalOptions) {
  return {
    mcps: {
      allow: options.allow.length > 0 ? options.allow : undefined,
      deny: options.deny.length > 0 ? options.deny : undefined,
    },
  };
}

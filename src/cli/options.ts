import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { discoverMcpServers, type DiscoveredServer, type DiscoveryResult, type ProjectServerPolicy } from '../config/index.js';
import type { Logger } from '../logger.js';

/** The flags every command shares. */
export interface GlobalOptions {
  config: string[];
  project?: string;
  allow: string[];
  deny: string[];
  verbose: boolean;
  projectServers: ProjectServerPolicy;
}

/**
 * `--config` replaces discovery; otherwise the user file and the project's `.mcp.json`. With
 * `--project-servers ask`, a project server not approved yet is asked about on a terminal;
 * without one (scripts, `serve`) it stays disabled.
 */
export function discover(options: GlobalOptions, logger: Logger, interactive = isInteractive()): Promise<DiscoveryResult> {
  return discoverMcpServers({
    configPaths: options.config.length > 0 ? options.config.map((file) => resolve(file)) : undefined,
    projectRoot: options.project ? resolve(options.project) : undefined,
    env: process.env,
    logger,
    projectServers: options.projectServers,
    approveProjectServer: interactive ? askOnTerminal : undefined,
  });
}

function isInteractive(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** Shows what would run (command or URL, never env or header values) and asks. */
async function askOnTerminal(server: DiscoveredServer): Promise<boolean> {
  const target = server.transport === 'stdio' ? `runs: ${server.config.command}` : `connects to: ${server.config.url}`;
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`Project server "${server.name}" from ${server.source} ${target}
Allow it? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

export function permissionsFrom(options: GlobalOptions) {
  return {
    mcps: {
      allow: options.allow.length > 0 ? options.allow : undefined,
      deny: options.deny.length > 0 ? options.deny : undefined,
    },
  };
}

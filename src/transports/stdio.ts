import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServerConfig } from '../../machines/types.js';
import { ConfigInvalidError } from '../connection/errors.js';
import { inOwnProcessGroup, resolveCommand, trackGroup } from './process-group.js';

/** The process group of each transport this module launched, once it has started. */
const processGroups = new WeakMap<object, () => number | undefined>();

/** The process group a transport's server leads, if this module launched it in one. */
export function processGroupOf(transport: object): (() => number | undefined) | undefined {
  return processGroups.get(transport);
}

/**
 * The SDK's stdio transport with stderr piped (for the error tail) and, where the platform
 * allows, the server started as the leader of its own process group. The child gets only the
 * SDK's default environment plus the entry's `env`.
 */
export function createStdioTransport(server: string, config: McpServerConfig): StdioClientTransport {
  if (typeof config.command !== 'string' || config.command.trim() === '') {
    throw new ConfigInvalidError(server, 'command', 'a stdio server needs a "command"');
  }
  const env = { ...getDefaultEnvironment(), ...config.env };
  const resolved = resolveCommand(config.command, env.PATH, config.cwd);
  if (!resolved) {
    throw Object.assign(
      new Error(`command "${config.command}" was not found or is not executable (looked in PATH and ${config.cwd ?? 'the working folder'})`),
      { code: 'ENOENT' },
    );
  }
  const launch = inOwnProcessGroup(resolved, config.args ?? []);
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env,
    cwd: config.cwd,
    stderr: 'pipe',
  });
  let processGroup: number | undefined;
  if (launch.grouped) {
    // The pid must be caught at spawn: the SDK forgets it once the process exits, and its
    // orphaned children still need ending.
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      processGroup = transport.pid ?? undefined;
      if (processGroup !== undefined) trackGroup(processGroup);
    };
  }
  processGroups.set(transport, () => processGroup);
  return transport;
}

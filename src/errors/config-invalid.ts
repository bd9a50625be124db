/**
 * A leaf module: the transports, the connection and the OAuth code all reject a bad entry with
 * this error, so it lives outside all three folders (no import cycle between them).
 */
import { quoted } from '../../machines/control-characters.js';

/**
 * A server entry that cannot work as written: retrying will not help.
 *
 * @example
 * ```ts
 * import { ConfigInvalidError, McpConnectionManager } from 'mcp-statechart';
 *
 * const manager = new McpConnectionManager();
 * await manager.connect('notes', { url: 'not a url' }).catch((error: unknown) => {
 *   if (error instanceof ConfigInvalidError) console.error(error.message);
 * });
 * ```
 */
export class ConfigInvalidError extends Error {
  override name = 'ConfigInvalidError';
  constructor(
    readonly server: string,
    readonly field: string,
    problem: string,
  ) {
    super(`MCP server ${quoted(server)}: ${problem} (field "${field}").`);
  }
}

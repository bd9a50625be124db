/**
 * Which flag or config rule keeps a server or tool out, worded for a person: the loader tools
 * tell the model only "not allowed for this agent", which names nothing a person can change.
 */
import type { ToolPatterns } from '../config/index.js';
import { globMatches } from '../tools/glob.js';
import type { GlobalOptions } from './options.js';

const quoted = (patterns: string[]) => patterns.map((pattern) => `'${pattern}'`).join(', ');

/** Why `server` is refused by --allow/--deny, or undefined when it is not. */
export function serverDenial(options: GlobalOptions, server: string): string | undefined {
  const denied = options.deny.find((pattern) => globMatches(pattern, server));
  if (denied !== undefined) return `--deny '${denied}' denies it`;
  if (options.allow.length > 0 && !options.allow.some((pattern) => globMatches(pattern, server))) {
    return `--allow lets only ${quoted(options.allow)} through`;
  }
  return undefined;
}

/** Why `server/tool` is refused by --allow-tool/--deny-tool or a config file's "permissions", or undefined. */
export function toolDenial(options: GlobalOptions, fromFiles: ToolPatterns, server: string, tool: string): string | undefined {
  const name = `${server}/${tool}`;
  const byFlag = options.denyTool.find((pattern) => globMatches(pattern, name));
  if (byFlag !== undefined) return `--deny-tool '${byFlag}' denies it`;
  const byFile = fromFiles.deny?.find((pattern) => globMatches(pattern, name));
  if (byFile !== undefined) return `the config's "permissions.mcpTools.deny" pattern '${byFile}' denies it`;
  if (options.allowTool.length > 0) {
    return options.allowTool.some((pattern) => globMatches(pattern, name)) ? undefined : `--allow-tool lets only ${quoted(options.allowTool)} through`;
  }
  if (fromFiles.allow !== undefined && !fromFiles.allow.some((pattern) => globMatches(pattern, name))) {
    return `the config's "permissions.mcpTools.allow" list (${quoted(fromFiles.allow)}) does not include it`;
  }
  return undefined;
}

/**
 * A config file that could not be read at all (not JSON, unreadable, not an object) leaves the
 * servers it defines out: discovery only warns and goes on. `serve` keeps running (it picks the
 * file up once it is fixed), so the model is told why the servers it may expect are missing.
 */
import type { DiscoveryResult } from '../config/index.js';
import { filesThatFailedWhole } from '../config/watch.js';
import { nameRecord } from '../../machines/name-record.js';

const RUN_DOCTOR = 'run `mcp-statechart doctor`, which says what is wrong';

/** The files of this result that nothing was loaded from. */
export function unreadConfigFiles(result: DiscoveryResult): string[] {
  return [...filesThatFailedWhole(result)];
}

/** The sentence the model reads (see `serversNotice`), or undefined when every file was read. */
export function unreadConfigNotice(result: DiscoveryResult): string | undefined {
  const files = unreadConfigFiles(result);
  if (files.length === 0) return undefined;
  return `The MCP configuration could not be read (${files.join(', ')}), so the servers it defines are missing: tell the user to ${RUN_DOCTOR}.`;
}

/** Servers whose entry was skipped, with discovery's reasons (see `skippedServers`): the model is told why, not "Unknown". */
export function skippedServerReasons(result: DiscoveryResult): Record<string, string> {
  const reasons = nameRecord<string>();
  for (const problem of result.problems) {
    if (problem.severity !== 'error' || problem.server === undefined || Object.hasOwn(result.servers, problem.server)) continue;
    reasons[problem.server] = reasons[problem.server] === undefined ? problem.message : `${reasons[problem.server]}; ${problem.message}`;
  }
  return reasons;
}

/** The line for serve's stderr at start; the problems themselves are the warnings above it. */
export function unreadConfigLine(result: DiscoveryResult): string | undefined {
  const files = unreadConfigFiles(result);
  if (files.length === 0) return undefined;
  return `could not read the MCP configuration (${files.join(', ')}): serving without the servers it defines until it is fixed; ${RUN_DOCTOR}`;
}

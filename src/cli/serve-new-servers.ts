/**
 * While `serve` runs, the model may be able to write its config: a filesystem server over the
 * home folder is a common setup, and `load_mcp` would start what it wrote in the same session.
 * So a server that appears in a re-read, or whose command, args, url, env (or cwd, headers)
 * changed, stays off until a person confirms it on a terminal (`mcp-statechart approve <name>`,
 * which records a keyed approval: src/config/approval-key.ts). Removals apply at once. Project
 * servers are left to their own policy (`--project-servers`), which already asks.
 */
import { createHash } from 'node:crypto';
import { nameRecord } from '../../machines/name-record.js';
import type { DiscoveredServer, DiscoveryResult, ProjectTrustOptions } from '../config/index.js';
import { isApproved, readApprovalRecord, sortKeys } from '../config/project-trust.js';
import { commandWord, quoted, terminalLine } from '../../machines/control-characters.js';

/** What decides what runs and where it connects: a change of any of these is a new server to confirm. */
function runsFingerprint(server: DiscoveredServer): string {
  const { command, args, cwd, url, env, headers } = server.config;
  return createHash('sha256').update(JSON.stringify([server.transport, sortKeys({ command, args, cwd, url, env, headers })])).digest('hex');
}

function isHeld(server: DiscoveredServer): boolean {
  return server.scope !== 'project' && !server.disabled;
}

/**
 * Returns the check every re-read goes through: servers enabled in `startedWith` keep running as
 * they are; any other enabled server outside the project comes back disabled, with a problem and
 * the reason the model is told, unless its current definition was approved on a terminal.
 */
export function holdNewServers(startedWith: DiscoveryResult, paths: Pick<ProjectTrustOptions, 'approvalsPath' | 'approvalKeyPath'>) {
  const atStart = new Map<string, string>();
  for (const server of Object.values(startedWith.servers)) if (isHeld(server)) atStart.set(server.name, runsFingerprint(server));

  return async (result: DiscoveryResult): Promise<DiscoveryResult> => {
    const candidates = Object.values(result.servers).filter((server) => isHeld(server) && atStart.get(server.name) !== runsFingerprint(server));
    if (candidates.length === 0) return result;
    const record = await readApprovalRecord(paths);
    const servers = nameRecord(result.servers);
    const problems = [...result.problems, ...(record.problem ? [record.problem] : [])];
    for (const server of candidates) {
      if (isApproved(record, server)) continue;
      const [what, kind] = atStart.has(server.name) ? ['changed (command, args, cwd, url, env or headers)', 'changed'] : ['appeared', 'added'];
      const because =
        `its entry ${what} in ${server.source} while mcp-statechart serve was running, and a server ${kind} there ` +
        `while serving runs only once a person confirms it on a terminal with "mcp-statechart approve ${commandWord(server.name)}".`;
      servers[server.name] = { ...server, disabled: true, disabledBecause: because };
      problems.push({ severity: 'warning', file: server.source, server: server.name, message: `server ${quoted(server.name)} is off: ${because}` });
    }
    return { ...result, servers, problems };
  };
}

/**
 * `approvals`: the project servers a person approved (file and name, and whether the definition
 * there is still the approved one); `approvals revoke <name>|--all` takes approvals back, so the
 * server is asked about again before it runs.
 */
import { quoted } from '../../../machines/control-characters.js';
import { discoverMcpServers } from '../../config/index.js';
import { isApproved, listApprovals, readApprovalRecord, revokeApprovals, type ApprovalRecord, type RecordedApproval } from '../../config/project-trust.js';
import { silentLogger } from '../../logger.js';
import { reportDone, reported, type ReportOptions } from '../command-report.js';
import { CliError } from '../json-codes.js';
import { terminalLine, writeError } from '../terminal-text.js';
import { dirname } from 'node:path';

type ApprovalState = 'approved' | 'changed since' | 'no longer defined';

/** Whether each approval still matches the definition in its file. */
async function withStates(record: ApprovalRecord): Promise<(RecordedApproval & { state: ApprovalState })[]> {
  const byFile = new Map<string, Awaited<ReturnType<typeof discoverMcpServers>>>();
  const states: (RecordedApproval & { state: ApprovalState })[] = [];
  for (const approval of listApprovals(record)) {
    if (!byFile.has(approval.source)) {
      byFile.set(approval.source, await discoverMcpServers({ projectRoot: dirname(approval.source), env: process.env, logger: silentLogger, projectServers: 'trust' }));
    }
    const result = byFile.get(approval.source)!;
    const server = [...Object.values(result.servers), ...(result.shadowed ?? [])].find(
      (candidate) => candidate.name === approval.name && candidate.source === approval.source && candidate.scope === 'project',
    );
    states.push({ ...approval, state: !server ? 'no longer defined' : isApproved(record, server) ? 'approved' : 'changed since' });
  }
  return states;
}

export function runApprovalsList(options: ReportOptions): Promise<number> {
  return reported(options, async () => {
    const record = await readApprovalRecord({});
    if (record.problem) writeError(`Warning: ${record.problem.message}.`);
    const approvals = await withStates(record);
    const text =
      approvals.length === 0
        ? 'No project server is approved. Project servers are approved on a terminal when asked, with `mcp-statechart approve <name>`, or by adding them with `mcp-statechart add --scope project`.'
        : [
            `${approvals.length} approved project server${approvals.length === 1 ? '' : 's'}:`,
            ...approvals.map((approval) => `  ${terminalLine(approval.name)}  ${terminalLine(approval.source)}  (${approval.state})`),
            'Take one back with `mcp-statechart approvals revoke <name>`, or all with `--all`.',
          ].join('\n');
    return reportDone(options, text, { approvals });
  });
}

export function runApprovalsRevoke(name: string | undefined, options: ReportOptions & { all?: boolean }): Promise<number> {
  return reported(options, async () => {
    if (name === undefined && !options.all) {
      throw new CliError('INVALID_ARGUMENTS', 'Say which approval to revoke: `mcp-statechart approvals revoke <name>`, or `--all` for every one.');
    }
    if (name !== undefined && options.all) throw new CliError('INVALID_ARGUMENTS', 'Give a name or --all, not both; nothing was revoked.');
    const removed = await revokeApprovals({}, (approval) => options.all === true || approval.name === name);
    if (removed.length === 0 && name !== undefined) {
      throw new CliError('UNKNOWN_APPROVAL', `No approval for ${quoted(name)}. Run \`mcp-statechart approvals\` to see the approved project servers.`);
    }
    const text =
      removed.length === 0
        ? 'There were no approvals to revoke.'
        : `Revoked ${removed.length} approval${removed.length === 1 ? '' : 's'}: ${removed.map((approval) => `${quoted(approval.name)} (${approval.source})`).join(', ')}. Each is asked about again before it runs.`;
    return reportDone(options, text, { revoked: removed });
  });
}

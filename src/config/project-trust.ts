/**
 * Project servers come from a `.mcp.json` inside code you may have just cloned: running them
 * is running that code. `projectServers` says what to do with them: `trust` (the default),
 * `deny`, or `ask` once per definition, remembered by a fingerprint of the definition, so an
 * edited command or URL has to be approved again. The file holds the fingerprints keyed with a
 * key kept elsewhere (see approval-key.ts), so whoever can write the file cannot approve.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { homeFolder } from './home-folder.js';
import type { ConfigProblem, DiscoveredServer, DiscoveryResult, ProjectTrustOptions } from './types.js';
import { defaultApprovalKeyPath, ensureApprovalKey, keyedFingerprint, readApprovalKey } from './approval-key.js';
import { withFileLock } from './file-lock.js';
import { removeLeftStagedCopies, stagedCopyPath } from './staged-copies.js';
import { readConfigFile } from './read-config-file.js';
import { isJsonObject } from './null-proto.js';
import { commandWord, quoted, terminalLine } from '../../machines/control-characters.js';
import { nameRecord } from '../../machines/name-record.js';

/** Throws when HOME is empty or relative (see home-folder.ts): pass `approvalsPath` then. */
export function defaultApprovalsPath(): string {
  return join(homeFolder(), '.ai-zen', 'mcp-approvals.json');
}

/**
 * A hash of everything that decides what runs, where it connects and what the model is told
 * about it (`description` goes to the model verbatim); only `disabled` does not count.
 *
 * @example
 * ```ts
 * import { discoverMcpServers } from 'mcp-statechart';
 * import { serverFingerprint } from 'mcp-statechart/config';
 *
 * const { servers } = await discoverMcpServers();
 * for (const [name, server] of Object.entries(servers)) console.log(name, serverFingerprint(server));
 * ```
 */
export function serverFingerprint(server: DiscoveredServer): string {
  const { disabled: _disabled, ...definition } = server.config;
  const canonical = JSON.stringify([server.transport, sortKeys(definition)]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** JSON values with object keys in order, so equal definitions serialize equally. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]));
}

function approvalKey(server: DiscoveredServer): string {
  return `${server.source}#${server.name}`;
}

/** The approvals a file holds, and what is wrong with it when it exists but cannot be used. */
interface ApprovalsRead {
  approvals: Record<string, string>;
  problem?: string;
}

async function readApprovals(path: string): Promise<ApprovalsRead> {
  // Read as a config file is: a FIFO at this path would otherwise hang every discovery.
  const read = await readConfigFile(path);
  if (read.kind === 'missing') return { approvals: nameRecord() };
  if (read.kind === 'unreadable') return { approvals: nameRecord(), problem: read.reason };
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch {
    // JSON.parse's message quotes the text; the file's content is never repeated.
    return { approvals: nameRecord(), problem: 'is not valid JSON' };
  }
  if (!isJsonObject(parsed)) return { approvals: nameRecord(), problem: 'is not a JSON object' };
  return { approvals: nameRecord(parsed) as Record<string, string> };
}

/** The approvals file and its key, as read once for a discovery. */
export interface ApprovalRecord {
  approvals: Record<string, string>;
  key: Buffer | undefined;
  /** Set when the approvals file exists but cannot be used: then nothing counts as approved. */
  problem?: ConfigProblem;
}

type ApprovalPaths = Pick<ProjectTrustOptions, 'approvalsPath' | 'approvalKeyPath'>;

export async function readApprovalRecord(options: ApprovalPaths): Promise<ApprovalRecord> {
  const path = options.approvalsPath ?? defaultApprovalsPath();
  const [{ approvals, problem }, key] = await Promise.all([readApprovals(path), readApprovalKey(options.approvalKeyPath ?? defaultApprovalKeyPath())]);
  if (problem === undefined) return { approvals, key };
  const message = `the approvals file ${path} ${problem}, so no project server counts as approved; fix it, or move it away to start a new one`;
  return { approvals, key, problem: { severity: 'warning', file: path, message } };
}

/** Whether this definition of the server, as it is now, was approved (with the key: an entry written without it never counts). */
export function isApproved(record: ApprovalRecord, server: DiscoveredServer): boolean {
  const written = record.approvals[approvalKey(server)];
  return record.key !== undefined && written === keyedFingerprint(record.key, serverFingerprint(server));
}

/** Records approvals of these servers as they are defined now; the key is made on the first one. */
export async function approveServers(options: ApprovalPaths, servers: readonly DiscoveredServer[]): Promise<void> {
  if (servers.length === 0) return;
  const key = await ensureApprovalKey(options.approvalKeyPath ?? defaultApprovalKeyPath());
  const additions = nameRecord<string>();
  for (const server of servers) additions[approvalKey(server)] = keyedFingerprint(key, serverFingerprint(server));
  await addApprovals(options.approvalsPath ?? defaultApprovalsPath(), additions);
}

/**
 * Changes the approvals file. Another process may approve at the same time, so under a lock the
 * file is read again, changed, and only then replaced: both changes are kept. The new content goes
 * to a temporary file created with O_EXCL (a symlink planted at that name is never written
 * through) and is renamed over the old one, so a reader sees the old file or the new one.
 */
async function updateApprovals(path: string, change: (approvals: Record<string, string>) => void): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await withFileLock(`${path}.lock`, async () => {
    const { approvals, problem } = await readApprovals(path);
    // A regular file may hold approvals this process cannot read now: replacing it would lose them.
    // Anything else there (a FIFO, a symlink) holds none and is replaced.
    if (problem !== undefined && (await lstat(path)).isFile()) {
      throw new Error(`the approvals file ${path} ${problem}; nothing was written, so the approvals it may hold are kept. Fix it, or move it away to start a new one, then approve again.`);
    }
    change(approvals);
    removeLeftStagedCopies(path);
    const temporary = stagedCopyPath(path);
    try {
      await writeFile(temporary, `${JSON.stringify(approvals, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  });
}

async function addApprovals(path: string, additions: Record<string, string>): Promise<void> {
  await updateApprovals(path, (approvals) => {
    for (const key of Object.keys(additions)) approvals[key] = additions[key] as string;
  });
}

/** One recorded approval: the project file and the server name it was given for. */
export interface RecordedApproval {
  source: string;
  name: string;
}

/**
 * `source#name` → its parts; the name is after the last `#` (a path may hold one, a name may not).
 * Any other key (a field another version keeps in the file, such as `version`) is no approval.
 */
function recordedApproval(key: string): RecordedApproval | undefined {
  const at = key.lastIndexOf('#');
  return at > 0 ? { source: key.slice(0, at), name: key.slice(at + 1) } : undefined;
}

/** Every approval in the record, in the order its file holds them. */
export function listApprovals(record: ApprovalRecord): RecordedApproval[] {
  return Object.keys(record.approvals).flatMap((key) => recordedApproval(key) ?? []);
}

/** Removes the approvals `revoke` picks; returns those removed. */
export async function revokeApprovals(options: ApprovalPaths, revoke: (approval: RecordedApproval) => boolean): Promise<RecordedApproval[]> {
  const removed: RecordedApproval[] = [];
  await updateApprovals(options.approvalsPath ?? defaultApprovalsPath(), (approvals) => {
    for (const key of Object.keys(approvals)) {
      const approval = recordedApproval(key);
      // Not ours to remove: a later version reads it.
      if (approval === undefined || !revoke(approval)) continue;
      delete approvals[key];
      removed.push(approval);
    }
  });
  return removed;
}

/**
 * Project servers that are not trusted stay listed, off (`trust`, `disabledBecause`), with a problem saying why and what to do.
 *
 * @example
 * ```ts
 * import { discoverMcpServers } from 'mcp-statechart';
 * import { applyProjectTrust } from 'mcp-statechart/config';
 *
 * const discovered = await discoverMcpServers({ projectServers: 'trust' });
 * const trusted = await applyProjectTrust(discovered, { projectServers: 'ask', approveProjectServer: (server) => server.scope === 'project' });
 * console.log(Object.keys(trusted.servers));
 * ```
 */
export async function applyProjectTrust(result: DiscoveryResult, options: ProjectTrustOptions): Promise<DiscoveryResult> {
  const policy = options.projectServers ?? 'trust';
  if (policy === 'trust') return result;
  const project = Object.values(result.servers).filter((server) => server.scope === 'project' && !server.disabled);
  if (project.length === 0) return result;

  const record = await readApprovalRecord(options);
  const servers = nameRecord(result.servers);
  const problems: ConfigProblem[] = [...result.problems, ...(record.problem ? [record.problem] : [])];
  const approved: DiscoveredServer[] = [];
  for (const server of project) {
    if (policy === 'ask') {
      if (isApproved(record, server)) continue;
      if (await options.approveProjectServer?.(server, serverFingerprint(server))) {
        approved.push(server);
        continue;
      }
    }
    const denied = 'project servers are denied here (projectServers: "deny"), so it is not used.';
    const waiting =
      `it is not approved${record.approvals[approvalKey(server)] ? ' since its definition changed' : ' yet'}; ` +
      `a person approves it on a terminal with "mcp-statechart approve ${commandWord(server.name)}" (or when asked), or trusts project servers.`;
    const trust = policy === 'deny' ? 'denied' : 'awaiting approval';
    const because = trust === 'denied' ? denied : `it is a project server waiting for approval: ${waiting}`;
    servers[server.name] = { ...server, disabled: true, trust, disabledBecause: because };
    problems.push({
      severity: 'warning',
      file: server.source,
      server: server.name,
      message: `project server ${quoted(server.name)} ${trust === 'denied' ? `is not used: ${denied}` : `is waiting for approval: ${waiting}`}`,
    });
  }
  await approveServers(options, approved);
  return { ...result, servers, problems };
}

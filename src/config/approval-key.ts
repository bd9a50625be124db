/**
 * The key the approvals file's fingerprints are keyed with (HMAC-SHA256), so a process that can
 * write `~/.ai-zen/mcp-approvals.json` (a filesystem MCP server the model drives, say) cannot
 * write an approval that counts: it would need this key. The key lives outside `~/.ai-zen` (the
 * folder such a server is given so the model can edit the MCP config), under
 * `~/.local/state/mcp-statechart/`, created on the first approval with mode 0600 in a folder of
 * mode 0700. It is no protection against a server that can read the whole home folder.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { link, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { homeFolder } from './home-folder.js';
import { dirname, join } from 'node:path';
import { readRegularFile } from './read-config-file.js';
import { removeLeftStagedCopies, stagedCopyPath } from './staged-copies.js';

const KEY_BYTES = 32;

/** Throws when HOME is empty or relative (see home-folder.ts): pass `approvalKeyPath` then. */
export function defaultApprovalKeyPath(): string {
  return join(homeFolder(), '.local', 'state', 'mcp-statechart', 'approval-key');
}

/** The key, or undefined when none was made yet (then no approval counts). A short or unreadable file is no key. */
export async function readApprovalKey(path: string): Promise<Buffer | undefined> {
  // Read as a config file is: a FIFO at this path would otherwise hang every discovery.
  const read = await readRegularFile(path, { maxBytes: KEY_BYTES });
  return read.kind === 'bytes' && read.bytes.length === KEY_BYTES ? read.bytes : undefined;
}

/** The key, made now when there is none; two processes making it at once end up with the same one. */
export async function ensureApprovalKey(path: string): Promise<Buffer> {
  const existing = await readApprovalKey(path);
  if (existing) return existing;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Made when none is there: what a maker killed before its link left goes.
  removeLeftStagedCopies(path);
  // Written whole under another name, then linked: a reader never sees half a key, and link fails if one is there.
  const temporary = stagedCopyPath(path);
  try {
    await writeFile(temporary, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process made the key first, or a broken one is there (cut short, a FIFO): no approval
    // counts with that one, so a new key replaces it and loses none. A folder there stays, named below.
    if (!(await readApprovalKey(path))) await rename(temporary, path).catch(() => {});
  } finally {
    await rm(temporary, { force: true });
  }
  const made = await readApprovalKey(path);
  if (!made) throw new Error(`the approval key ${path} is not a file of ${KEY_BYTES} bytes, so nothing can be approved: move it away, and a new key is made`);
  return made;
}

/** What the approvals file holds for a definition: its fingerprint, keyed. */
export function keyedFingerprint(key: Buffer, fingerprint: string): string {
  return createHmac('sha256', key).update(fingerprint).digest('hex');
}

/**
 * A write the disk or the folder refused (full, read-only, not the user's to write), in a
 * person's words: the errno alone ("ENOSPC: no space left on device, write") names neither
 * the file nor a way out.
 */
export interface WriteRefusal {
  /** Why, completing "could not write <file>: …". */
  reason: string;
  /** What to do, completing "…, then run the command again". */
  remedy: string;
}

const REFUSALS: Record<string, WriteRefusal> = {
  ENOSPC: { reason: 'the disk is full', remedy: 'Free some space on it' },
  EDQUOT: { reason: 'your disk quota is used up', remedy: 'Free some space in it' },
  EROFS: { reason: 'its folder is on a read-only file system', remedy: 'Make it writable' },
  EACCES: { reason: 'permission denied', remedy: 'Check that you may write the file and its folder' },
  EPERM: { reason: 'permission denied', remedy: 'Check that you may write the file and its folder' },
  ENOTDIR: { reason: 'one of its folders is a file', remedy: 'Move that file away' },
};

/** The refusal `error` is, or undefined for any other failure. */
export function writeRefusal(error: unknown): WriteRefusal | undefined {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  // A folder that cannot be made because a file is in its place: mkdir says EEXIST, not ENOTDIR.
  const meant = code === 'EEXIST' && syscall === 'mkdir' ? 'ENOTDIR' : code;
  return typeof meant === 'string' && Object.hasOwn(REFUSALS, meant) ? REFUSALS[meant] : undefined;
}

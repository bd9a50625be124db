/**
 * Reads one config file without ever hanging or throwing. A config path is user input: it may be
 * missing, a directory, a symlink loop, a FIFO (reading one blocks forever) or a device.
 */
import { closeSync, constants, fstatSync, openSync, readSync, promises as fs, type Stats } from 'node:fs';
import { dirname } from 'node:path';

type Unreadable = {
  kind: 'unreadable';
  reason: string;
  /** The file's size, when that is why it was refused. */
  bytes?: number;
};

export type ConfigFileRead = { kind: 'text'; text: string } | { kind: 'missing' } | Unreadable;

export type RegularFileRead = { kind: 'bytes'; bytes: Buffer } | { kind: 'missing' } | Unreadable;

// O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; the fstat
// below then rejects it. Windows has no such flag (and no FIFOs at ordinary paths).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A config file larger than this is refused: even 10,000 servers take a few megabytes. */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

export interface ReadConfigFileOptions {
  /**
   * Refuse a file that someone else could have put there: one not owned by this user (or root),
   * or writable by others, or in a folder that is. For project files, which discovery finds by
   * walking up from the working folder. Not checked on Windows (no owners or modes).
   */
  requireOwnLocation?: boolean;
  /** The largest file read; MAX_CONFIG_FILE_BYTES unless said. */
  maxBytes?: number;
}

export async function readConfigFile(path: string, options: ReadConfigFileOptions = {}): Promise<ConfigFileRead> {
  const read = await readRegularFile(path, options);
  return read.kind === 'bytes' ? { kind: 'text', text: read.bytes.toString('utf8') } : read;
}

/** The bytes of a regular file, read with the same care: for files that are not text (a key). */
export async function readRegularFile(path: string, options: ReadConfigFileOptions = {}): Promise<RegularFileRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, OPEN_FLAGS);
  } catch (error) {
    return fromOpenError(error);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { kind: 'unreadable', reason: 'is a directory, not a file' };
    if (!stats.isFile()) return { kind: 'unreadable', reason: 'is not a regular file' };
    if (options.requireOwnLocation) {
      const refusal = foreignLocation(stats, await fs.stat(dirname(path)));
      if (refusal) return { kind: 'unreadable', reason: ignoredBecause(refusal) };
    }
    const maxBytes = options.maxBytes ?? MAX_CONFIG_FILE_BYTES;
    if (stats.size > maxBytes) {
      return { kind: 'unreadable', reason: tooLarge(stats.size, maxBytes), bytes: stats.size };
    }
    // At most one byte past the limit, should the file grow after the check.
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes) return { kind: 'unreadable', reason: `is larger than the limit of ${megabytes(maxBytes)} MB` };
    return { kind: 'bytes', bytes: buffer.subarray(0, bytesRead) };
  } catch (error) {
    return { kind: 'unreadable', reason: describeCode(error) };
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * The same read, synchronous, for the state files read on paths that cannot wait (a login, the
 * task journal, the index): a FIFO or device planted at one would otherwise block the process.
 */
export function readRegularFileSync(path: string, maxBytes: number): RegularFileRead {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return fromOpenError(error);
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) return { kind: 'unreadable', reason: 'is a directory, not a file' };
    if (!stats.isFile()) return { kind: 'unreadable', reason: 'is not a regular file' };
    if (stats.size > maxBytes) return { kind: 'unreadable', reason: tooLarge(stats.size, maxBytes), bytes: stats.size };
    const buffer = Buffer.alloc(stats.size + 1);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes) return { kind: 'unreadable', reason: `is larger than the limit of ${megabytes(maxBytes)} MB` };
    return { kind: 'bytes', bytes: buffer.subarray(0, bytesRead) };
  } catch (error) {
    return { kind: 'unreadable', reason: describeCode(error) };
  } finally {
    closeSync(fd);
  }
}

function fromOpenError(error: unknown): RegularFileRead {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // ENOTDIR: a parent of the path is a file, so the config cannot exist either.
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
  return { kind: 'unreadable', reason: describeCode(error) };
}

// Only the error code is reported: fs messages are fine, but codes are stable and short.
function describeCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ELOOP':
      return 'is a symbolic link loop';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read (permission denied)';
    default:
      return `cannot be read (${code ?? 'unknown error'})`;
  }
}

/** `bytes` in MB with one decimal, as the size limits are worded. */
/** Why a file is refused for its size: in bytes when its megabytes, rounded, would read as the limit itself ("is 16 MB; the limit is 16 MB"). */
function tooLarge(size: number, maxBytes: number): string {
  const [shown, limit] = [megabytes(size), megabytes(maxBytes)];
  if (shown !== limit) return `is ${shown} MB; the limit is ${limit} MB`;
  return `is ${size.toLocaleString('en-US')} bytes; the limit is ${limit} MB (${maxBytes.toLocaleString('en-US')} bytes)`;
}

export function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '');
}

const WRITABLE_BY_OTHERS = 0o002;

/** Why discovery ignores a project file: who else could have written it. */
export type ForeignLocation = 'folder of another user' | 'folder writable by others' | 'file of another user' | 'file writable by others';

const IGNORED_BECAUSE: Record<ForeignLocation, string> = {
  'folder of another user': 'is ignored: its folder belongs to another user',
  'folder writable by others': 'is ignored: its folder is writable by other users',
  'file of another user': 'is ignored: it belongs to another user',
  'file writable by others': 'is ignored: it is writable by other users',
};

/** Discovery's words for a project file it ignores: "is ignored: …". */
export function ignoredBecause(location: ForeignLocation): string {
  return IGNORED_BECAUSE[location];
}

/**
 * Why discovery would ignore the project file at `path`, or undefined: checked before a command
 * writes one, since a file written there would load nothing (and a rewritten file of another
 * user's would become ours, its other entries with it). When the file is missing, its folder
 * decides; a missing folder is created as ours.
 */
export async function foreignProjectLocation(path: string): Promise<ForeignLocation | undefined> {
  const folder = await fs.stat(dirname(path)).catch(() => undefined);
  if (folder === undefined) return undefined;
  return foreignLocation(await fs.stat(path).catch(() => undefined), folder);
}

function foreignLocation(file: Stats | undefined, folder: Stats): ForeignLocation | undefined {
  const me = process.getuid?.();
  if (me === undefined) return undefined;
  const trusted = (owner: number) => owner === me || owner === 0;
  if (!trusted(folder.uid)) return 'folder of another user';
  if (folder.mode & WRITABLE_BY_OTHERS) return 'folder writable by others';
  if (file === undefined) return undefined;
  if (!trusted(file.uid)) return 'file of another user';
  if (file.mode & WRITABLE_BY_OTHERS) return 'file writable by others';
  return undefined;
}

/**
 * Reads one config file without ever hanging or throwing. A config path is user input: it may be
 * missing, a directory, a symlink loop, a FIFO (reading one blocks forever) or a device.
 */
import { constants, promises as fs } from 'node:fs';

export type ConfigFileRead =
  | { kind: 'text'; text: string }
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string };

// O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; the fstat
// below then rejects it. Windows has no such flag (and no FIFOs at ordinary paths).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export async function readConfigFile(path: string): Promise<ConfigFileRead> {
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
    return { kind: 'text', text: await handle.readFile({ encoding: 'utf8' }) };
  } catch (error) {
    return { kind: 'unreadable', reason: describeCode(error) };
  } finally {
    await handle.close().catch(() => {});
  }
}

function fromOpenError(error: unknown): ConfigFileRead {
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

/**
 * A tool result or resource as `call` and `read` print it for a person: every text whole, in
 * the server's order; images, audio and binary resources named in their place and, with
 * `--output`, saved to files named from the content; structured content once (not when a text
 * block already carries it).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { blobText, repeatsContent, structuredText } from '../tools/describe-content.js';
import type { RawResult } from './raw-results.js';
import { CliError } from './json-codes.js';
import { commandWord, terminalLine } from './terminal-text.js';
import { stagedCopyPath } from '../config/staged-copies.js';

interface BinaryPiece {
  kind: 'image' | 'audio' | 'binary resource';
  base64: string;
  mimeType?: string;
  uri?: string;
}

/** A binary piece with `text` is a blob that decodes as text: printed as that text, saved as its bytes with --output. */
type Piece = { text: string } | { binary: BinaryPiece; text?: string };

export interface SavedFile {
  file: string;
  mimeType?: string;
  bytes: number;
}

export interface OutputTarget {
  /** `--output`: a file (one binary part) or a folder (an existing one, or a path ending in a separator). */
  path: string;
  /** `--force`: replace files that are there. */
  force: boolean;
  /**
   * `--max-files`: the most files one result may write. The server decides how many parts a result
   * has (200,000 images fit in 10 MiB); a person who asked for "the images" should not find a
   * folder of tens of thousands without having said so.
   */
  maxFiles: number;
}

type ResourceContents = Extract<CallToolResult['content'][number], { type: 'resource' }>['resource'];

function contentsPiece(contents: ResourceContents): Piece {
  if ('text' in contents && typeof contents.text === 'string') return { text: contents.text };
  if ('blob' in contents && typeof contents.blob === 'string') {
    const binary: BinaryPiece = { kind: 'binary resource', base64: contents.blob, mimeType: contents.mimeType, uri: contents.uri };
    const text = blobText(contents.blob, contents.mimeType);
    return text === undefined ? { binary } : { binary, text };
  }
  return { text: `[resource ${contents.uri}: no text or blob]` };
}

function toolPieces(server: string, result: CallToolResult): Piece[] {
  const content = result.content ?? [];
  const pieces = content.map((block): Piece => {
    switch (block.type) {
      case 'text':
        return { text: block.text };
      case 'image':
      case 'audio':
        return { binary: { kind: block.type, base64: block.data, mimeType: block.mimeType } };
      case 'resource_link':
        return { text: `[resource link: ${terminalLine(block.uri)} (${terminalLine(block.name)}); read it with \`mcp-statechart read ${commandWord(server)} ${commandWord(block.uri)}\`]` };
      case 'resource':
        return contentsPiece(block.resource);
      default:
        return { text: `[${(block as { type: string }).type} content, not shown]` };
    }
  });
  const structured = result.structuredContent;
  if (structured !== undefined && !repeatsContent(structured, content)) pieces.push({ text: structuredText(structured) });
  return pieces.length > 0 ? pieces : [{ text: '(the tool returned no content)' }];
}

function resultPieces(server: string, raw: RawResult): Piece[] {
  if (raw.kind === 'tool') return toolPieces(server, raw.result);
  return raw.result.contents.length > 0 ? raw.result.contents.map(contentsPiece) : [{ text: '(the resource is empty)' }];
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'application/gzip': 'gz',
  'application/zip': 'zip',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'text/plain': 'txt',
};

/** The longest file name taken from a server's URI. */
const MAX_NAME = 100;

/** A file name from the content: the URI's last segment, or the kind and position; never a path, a dot file or a control character. */
function fileName(piece: BinaryPiece, position: number): string {
  const extension = EXTENSIONS[piece.mimeType?.split(';')[0]?.trim().toLowerCase() ?? ''] ?? 'bin';
  let segment = piece.uri?.split(/[?#]/)[0]?.split('/').filter(Boolean).pop() ?? '';
  try {
    segment = decodeURIComponent(segment);
  } catch {
    // A malformed escape stays as written; the characters are replaced below anyway.
  }
  const name = segment.replace(/[^\w.-]+/g, '_').replace(/^[.-]+/, '').slice(0, MAX_NAME);
  if (name === '') return `${piece.kind === 'binary resource' ? 'resource' : piece.kind}-${position}.${extension}`;
  return name.includes('.') ? name : `${name}.${extension}`;
}

async function kindOf(file: string): Promise<'folder' | 'file' | 'none'> {
  try {
    return (await lstat(file)).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'none';
  }
}

/** Where each binary piece goes: one file, or files named from the content in a folder (a name used twice gets -2, -3…). */
async function plan(binaries: BinaryPiece[], target: OutputTarget): Promise<string[]> {
  const endsInSeparator = /[/\\]$/.test(target.path);
  const kind = await kindOf(target.path);
  if (kind !== 'folder' && !endsInSeparator) {
    if (binaries.length > 1) {
      throw new CliError('OUTPUT_NEEDS_FOLDER', `the result has ${binaries.length} files to save and --output ${target.path} is not a folder`, 'give an existing folder, or a path ending in /');
    }
    return [target.path];
  }
  const used = new Set<string>();
  return binaries.map((piece, index) => {
    const name = fileName(piece, index + 1);
    let unique = name;
    for (let copy = 2; used.has(unique); copy++) unique = name.replace(/(\.[^.]*)?$/, (extension) => `-${copy}${extension}`);
    used.add(unique);
    return path.join(target.path, unique);
  });
}

/**
 * `--output` naming a file that is already there, without `--force`: refused before the call, as a
 * tool's side effects cannot be undone and its result would be lost. A folder's file names come
 * from the result, so those are checked when it is saved (and `wx` still refuses a file that
 * appears meanwhile).
 */
export async function outputTakenBeforeRun(target: OutputTarget | undefined): Promise<CliError | undefined> {
  if (!target || target.force || /[/\\]$/.test(target.path) || (await kindOf(target.path)) !== 'file') return undefined;
  return new CliError('OUTPUT_EXISTS', `nothing was run: --output ${target.path} is already there`, 'pass --force to replace it, or give another --output');
}

async function save(binaries: BinaryPiece[], target: OutputTarget): Promise<SavedFile[]> {
  // Before anything is written: a cap reached part way would leave a folder half saved.
  if (binaries.length > target.maxFiles) {
    throw new CliError('OUTPUT_TOO_MANY', `not saved: the result has ${binaries.length} files to save, more than --max-files ${target.maxFiles}`, `pass --max-files ${binaries.length} to save them all`);
  }
  const files = await plan(binaries, target);
  if (!target.force) {
    const there = [];
    for (const file of files) if ((await kindOf(file)) !== 'none') there.push(file);
    if (there.length > 0) {
      throw new CliError('OUTPUT_EXISTS', `not saved: ${there.join(', ')} ${there.length === 1 ? 'is' : 'are'} already there`, 'pass --force to replace, or give another --output');
    }
  }
  if (/[/\\]$/.test(target.path)) await mkdir(target.path, { recursive: true });
  // One file at a time: a server decides how many there are (200,000 images fit in 10 MiB), and
  // writing them all at once ran out of file descriptors part way, leaving the first ones behind.
  const saved: SavedFile[] = [];
  for (const [index, piece] of binaries.entries()) saved.push(await saveOne(piece, files[index]!, target.force));
  return saved;
}

async function saveOne(piece: BinaryPiece, file: string, force: boolean): Promise<SavedFile> {
  const bytes = Buffer.from(piece.base64, 'base64');
  try {
    // Without --force: `wx` refuses a file (or link) that appeared since the check. With it, a
    // new file renamed over the old one replaces a link there instead of writing where it points.
    if (force) await replaceWith(file, bytes);
    else await writeFile(file, bytes, { flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new CliError('OUTPUT_EXISTS', `not saved: ${file} is already there`, 'pass --force to replace, or give another --output');
    throw new CliError('OUTPUT_FAILED', `could not save ${file}: ${(error as Error).message}`);
  }
  return { file, ...(piece.mimeType ? { mimeType: piece.mimeType } : {}), bytes: bytes.length };
}

/**
 * No clean-up of copies a killed writer left (removeLeftStagedCopies): the folder is the user's,
 * where a file of theirs may be named like one (`photo.png.99999.5678.tmp`).
 */
async function replaceWith(file: string, bytes: Buffer): Promise<void> {
  const temporary = stagedCopyPath(file);
  try {
    await writeFile(temporary, bytes, { flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

function describe(piece: BinaryPiece, bytes: number): string {
  // The server's URI and type inside a line the CLI writes: escaped, as every name it shows is.
  return `${piece.kind}${piece.uri ? ` ${terminalLine(piece.uri)}` : ''}: ${piece.mimeType === undefined ? 'unknown type' : terminalLine(piece.mimeType)}, ${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

export interface WholeResult {
  text: string;
  saved: SavedFile[];
}

/** The text to print, and the files saved when there is an `--output`. */
export async function wholeResult(server: string, raw: RawResult, output: OutputTarget | undefined): Promise<WholeResult> {
  const pieces = resultPieces(server, raw);
  const binaries = pieces.flatMap((piece) => ('binary' in piece ? [piece.binary] : []));
  const saved = output && binaries.length > 0 ? await save(binaries, output) : [];
  let next = 0;
  const lines = pieces.map((piece) => {
    if (!('binary' in piece)) return piece.text;
    const file = saved[next++];
    if (file) return `[${describe(piece.binary, file.bytes)}, saved to ${file.file}]`;
    if (piece.text !== undefined) return piece.text;
    return `[${describe(piece.binary, Buffer.byteLength(piece.binary.base64, 'base64'))}, not shown: save it with --output <file|folder>]`;
  });
  return { text: lines.join('\n'), saved };
}

/**
 * `--max-bytes`: the text cut between characters so that, as `shown` prints it (escaped on a
 * terminal, where one control character is shown as up to 8), it is within `max` bytes of UTF-8.
 * `shownBytes` and `total` count what is printed, the cut text and the whole.
 */
export function withinBytes(text: string, max: number, shown: (text: string) => string = (same) => same): { text: string; cut: boolean; shownBytes: number; total: number } {
  const total = Buffer.byteLength(shown(text));
  if (total <= max) return { text, cut: false, shownBytes: total, total };
  // Character by character (a surrogate pair is one), reading no further than it keeps. A
  // character never prints longer beside others than alone (an isolate around right-to-left text
  // is kept, one alone is escaped), so the sum bounds the print.
  let end = 0;
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(shown(char));
    if (bytes + size > max) break;
    bytes += size;
    end += char.length;
  }
  const kept = text.slice(0, end);
  return { text: kept, cut: true, shownBytes: Buffer.byteLength(shown(kept)), total };
}

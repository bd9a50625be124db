/**
 * The manifest index: the last known manifest of each server, kept in one JSON file (mode 0600,
 * replaced atomically), keyed by server name and a keyed fingerprint of its definition, so an
 * edited definition never serves the manifest of the old one. Search reads it in memory; it is
 * re-read only when another process has replaced the file.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { McpServerConfig, McpServerManifest } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import { definitionFingerprint, loadOrCreateKey } from './fingerprint.js';
import { indexedManifest, parseIndexedManifest } from './indexed-manifest.js';

const FORMAT_VERSION = 1;
/** A bigger file is not read (someone else's file, or a runaway): the index starts empty instead. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

export interface IndexEntry {
  fingerprint: string;
  /** ISO time of the listing. */
  indexedAt: string;
  manifest: McpServerManifest;
}

/** `fresh`: indexed for this very definition; `stale`: indexed for an earlier one; `missing`: never indexed. */
export type IndexLookup = { status: 'fresh'; entry: IndexEntry } | { status: 'stale'; entry: IndexEntry } | { status: 'missing' };

export interface ManifestIndexOptions {
  /** The index file. Default `~/.ai-zen/mcp-index.json`; its key lives beside it in `<file>.key`. */
  path?: string;
}

export function defaultManifestIndexPath(): string {
  return join(homedir(), '.ai-zen', 'mcp-index.json');
}

function readEntries(file: string): Record<string, IndexEntry> {
  const entries = nameRecord<IndexEntry>();
  let parsed: unknown;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) return entries;
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return entries;
  }
  const servers = (parsed as { version?: unknown; servers?: unknown })?.servers;
  if ((parsed as { version?: unknown }).version !== FORMAT_VERSION || typeof servers !== 'object' || servers === null) return entries;
  for (const [name, value] of Object.entries(servers as Record<string, unknown>)) {
    const { fingerprint, indexedAt, manifest } = (value ?? {}) as Record<string, unknown>;
    const parsedManifest = parseIndexedManifest(manifest);
    if (typeof fingerprint !== 'string' || typeof indexedAt !== 'string' || !parsedManifest) continue;
    entries[name] = { fingerprint, indexedAt, manifest: parsedManifest };
  }
  return entries;
}

function fileStamp(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return 'none';
  }
}

export class ManifestIndex {
  readonly path: string;
  /** Read (or made) on first use: a command that only lists servers creates no key when nothing is indexed. */
  private key?: Buffer;
  private entries: Record<string, IndexEntry>;
  private stamp: string;
  private changes = 0;

  constructor(options: ManifestIndexOptions = {}) {
    this.path = options.path ?? defaultManifestIndexPath();
    this.stamp = fileStamp(this.path);
    this.entries = readEntries(this.path);
  }

  /** Grows whenever what the index holds may have changed; search rebuilds its ranking when it does. */
  get version(): number {
    this.reloadIfReplaced();
    return this.changes;
  }

  /** Whether any server has been indexed (by this process or another): tool search is offered by default only then. */
  get isEmpty(): boolean {
    this.reloadIfReplaced();
    return Object.keys(this.entries).length === 0;
  }

  fingerprint(config: McpServerConfig): string {
    this.key ??= loadOrCreateKey(`${this.path}.key`);
    return definitionFingerprint(this.key, config);
  }

  lookup(server: string, config: McpServerConfig): IndexLookup {
    this.reloadIfReplaced();
    const entry = Object.hasOwn(this.entries, server) ? this.entries[server] : undefined;
    if (!entry) return { status: 'missing' };
    return entry.fingerprint === this.fingerprint(config) ? { status: 'fresh', entry } : { status: 'stale', entry };
  }

  /** Stores the manifest under this definition and writes the file (entries another process wrote since we read it are kept). */
  record(server: string, config: McpServerConfig, manifest: McpServerManifest): void {
    this.reloadIfReplaced();
    // A copy that keeps the other entries as they are: search's cached words for them stay valid.
    const entries = nameRecord(this.entries);
    entries[server] = { fingerprint: this.fingerprint(config), indexedAt: new Date().toISOString(), manifest: indexedManifest(manifest) };
    this.write(entries);
  }

  private write(entries: Record<string, IndexEntry>): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: FORMAT_VERSION, servers: entries }), { mode: 0o600, flag: 'wx' });
    renameSync(temporary, this.path);
    this.entries = entries;
    this.stamp = fileStamp(this.path);
    this.changes++;
  }

  private reloadIfReplaced(): void {
    const stamp = fileStamp(this.path);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.entries = readEntries(this.path);
    this.changes++;
  }
}

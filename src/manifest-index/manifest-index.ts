/**
 * The manifest index: the last known manifest of each server, kept in one JSON file (mode 0600,
 * replaced atomically), keyed by server name and a keyed fingerprint of its definition, so an
 * edited definition never serves the manifest of the old one. A project's servers are filed
 * under their `.mcp.json` as well: the same entry text in two projects may run two different
 * programs (`node server.mjs` in each folder), so they never share an entry, and a project
 * cannot fill in the entry of a user server. Search reads it in memory; it is re-read only when
 * another process has replaced the file.
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

/** The file's servers: those of the user's config (and plain configs) by name, and each project's by its `.mcp.json`. */
interface IndexContents {
  servers: Record<string, IndexEntry>;
  projects: Record<string, Record<string, IndexEntry>>;
}

export interface ManifestIndexOptions {
  /** The index file. Default `~/.ai-zen/mcp-index.json`; its key lives beside it in `<file>.key`. */
  path?: string;
}

export function defaultManifestIndexPath(): string {
  return join(homedir(), '.ai-zen', 'mcp-index.json');
}

function emptyContents(): IndexContents {
  return { servers: nameRecord<IndexEntry>(), projects: nameRecord<Record<string, IndexEntry>>() };
}

function parseEntries(servers: unknown): Record<string, IndexEntry> {
  const entries = nameRecord<IndexEntry>();
  if (typeof servers !== 'object' || servers === null) return entries;
  for (const [name, value] of Object.entries(servers as Record<string, unknown>)) {
    const { fingerprint, indexedAt, manifest } = (value ?? {}) as Record<string, unknown>;
    const parsedManifest = parseIndexedManifest(manifest);
    if (typeof fingerprint !== 'string' || typeof indexedAt !== 'string' || !parsedManifest) continue;
    entries[name] = { fingerprint, indexedAt, manifest: parsedManifest };
  }
  return entries;
}

function readContents(file: string): IndexContents {
  const contents = emptyContents();
  let parsed: unknown;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) return contents;
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return contents;
  }
  const { version, servers, projects } = (parsed ?? {}) as { version?: unknown; servers?: unknown; projects?: unknown };
  if (version !== FORMAT_VERSION || typeof servers !== 'object' || servers === null) return contents;
  contents.servers = parseEntries(servers);
  if (typeof projects === 'object' && projects !== null) {
    for (const [projectFile, entries] of Object.entries(projects as Record<string, unknown>)) contents.projects[projectFile] = parseEntries(entries);
  }
  return contents;
}

/** A copy with one entry set; the other entries are the same objects (search's cached words for them stay valid). */
function withEntry(contents: IndexContents, server: string, projectFile: string | undefined, entry: IndexEntry): IndexContents {
  if (projectFile === undefined) return { servers: nameRecord(contents.servers, { [server]: entry }), projects: contents.projects };
  const project = nameRecord(contents.projects[projectFile], { [server]: entry });
  return { servers: contents.servers, projects: nameRecord(contents.projects, { [projectFile]: project }) };
}

function entryOf(contents: IndexContents, server: string, projectFile: string | undefined): IndexEntry | undefined {
  const entries = projectFile === undefined ? contents.servers : contents.projects[projectFile];
  return entries && Object.hasOwn(entries, server) ? entries[server] : undefined;
}

/**
 * The file a server's index entry is filed under: its `.mcp.json` for a project server, none
 * (shared by name) for the user's servers and plain configs. `DiscoveredServer` fits.
 */
export function projectFileOf(server: { scope?: string; source?: string }): string | undefined {
  return server.scope === 'project' ? server.source : undefined;
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
  private contents: IndexContents;
  private stamp: string;
  private changes = 0;

  constructor(options: ManifestIndexOptions = {}) {
    this.path = options.path ?? defaultManifestIndexPath();
    this.stamp = fileStamp(this.path);
    this.contents = readContents(this.path);
  }

  /** Grows whenever what the index holds may have changed; search rebuilds its ranking when it does. */
  get version(): number {
    this.reloadIfReplaced();
    return this.changes;
  }

  /** Whether any server has been indexed (by this process or another): tool search is offered by default only then. */
  get isEmpty(): boolean {
    this.reloadIfReplaced();
    const { servers, projects } = this.contents;
    return Object.keys(servers).length === 0 && Object.values(projects).every((entries) => Object.keys(entries).length === 0);
  }

  fingerprint(config: McpServerConfig): string {
    this.key ??= loadOrCreateKey(`${this.path}.key`);
    return definitionFingerprint(this.key, config);
  }

  /** `projectFile`: the `.mcp.json` of a project server (`projectFileOf`); without it, the entry shared by name. */
  lookup(server: string, config: McpServerConfig, projectFile?: string): IndexLookup {
    this.reloadIfReplaced();
    const entry = entryOf(this.contents, server, projectFile);
    if (!entry) return { status: 'missing' };
    return entry.fingerprint === this.fingerprint(config) ? { status: 'fresh', entry } : { status: 'stale', entry };
  }

  /** Stores the manifest under this definition and writes the file (entries another process wrote since we read it are kept). */
  record(server: string, config: McpServerConfig, manifest: McpServerManifest, projectFile?: string): void {
    this.reloadIfReplaced();
    const entry = { fingerprint: this.fingerprint(config), indexedAt: new Date().toISOString(), manifest: indexedManifest(manifest) };
    this.write(withEntry(this.contents, server, projectFile, entry));
  }

  private write(contents: IndexContents): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: FORMAT_VERSION, ...contents }), { mode: 0o600, flag: 'wx' });
    renameSync(temporary, this.path);
    this.contents = contents;
    this.stamp = fileStamp(this.path);
    this.changes++;
  }

  private reloadIfReplaced(): void {
    const stamp = fileStamp(this.path);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.contents = readContents(this.path);
    this.changes++;
  }
}

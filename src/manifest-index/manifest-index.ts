/**
 * The manifest index: the last known manifest of each server, kept in one JSON file (mode 0600,
 * replaced atomically), keyed by server name and a keyed fingerprint of its definition, so an
 * edited definition never serves the manifest of the old one. Definitions of one name that differ
 * only in credential values (users of one process, each with their own token) are kept side by
 * side, and none of them is another's. A project's servers are filed
 * under their `.mcp.json` as well: the same entry text in two projects may run two different
 * programs (`node server.mjs` in each folder), so they never share an entry, and a project
 * cannot fill in the entry of a user server. Search reads it in memory; it is re-read only when
 * another process has replaced the file.
 *
 * Writes leave the caller at once: what is recorded is seen by every `ManifestIndex` of the file
 * in this process straight away, and written in the background, everything recorded meanwhile in
 * one write. Each write holds a lock beside the file (src/config/file-lock.ts), re-reads the file
 * when another process replaced it, and puts this process's changes over it, so two processes
 * recording at once lose nothing. `flush()` waits for the writes.
 */
import { existsSync, statSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { PriorDiscovery } from '@modelcontextprotocol/client';
import type { McpServerConfig, McpServerManifest } from '../../machines/types.js';
import { nameRecord } from '../../machines/name-record.js';
import { withFileLock } from '../config/file-lock.js';
import { removeLeftStagedCopies, stagedCopyPath } from '../config/staged-copies.js';
import { homeFolder } from '../config/home-folder.js';
import { readRegularFile, readRegularFileSync } from '../config/read-config-file.js';
import { stderrLogger, type Logger } from '../logger.js';
import { manifestAtRest, redactStrings, secretsOf } from '../redact.js';
import { credentialFreeFingerprint, definitionFingerprint, loadOrCreateKey } from '../config/definition-fingerprint.js';
import { indexedInstructions, indexedManifest, MAX_INDEXED_BYTES, parseIndexedManifest } from './indexed-manifest.js';

const FORMAT_VERSION = 1;
/**
 * Definitions of one server name that differ only in credential values (users of one process,
 * each with their own token) kept side by side, the most recent first: two users taking turns
 * do not evict each other's entry, and a hundred do not grow the index a hundredfold.
 */
const MAX_CREDENTIAL_VARIANTS = 8;
/** A bigger file is not read (someone else's file, or a runaway): the index starts empty instead. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

export interface IndexEntry {
  fingerprint: string;
  /** ISO time of the listing. */
  indexedAt: string;
  manifest: McpServerManifest;
  /**
   * The era the server spoke (its `server/discover` answer when modern), so a connect in another
   * process addresses it at once instead of probing. Only what the server published.
   */
  era?: PriorDiscovery;
  /**
   * What the server said it is for (`instructions` of its `initialize` or `server/discover`
   * answer), without control characters and at most MAX_PURPOSE_CHARACTERS characters: search
   * ranks and describes a server it knows only from the index by it, as it does a connected one.
   */
  instructions?: string;
  /** The fingerprint of the definition without its credential values (src/config/definition-fingerprint.ts); absent in entries written before it was kept. */
  credentialFree?: string;
  /**
   * Entries of the same definition recorded with other credential values (other users), the most
   * recent first, at most MAX_CREDENTIAL_VARIANTS - 1; each without variants of its own.
   */
  others?: IndexEntry[];
}

/**
 * `fresh`: indexed for this very definition; `stale`: indexed for an earlier one; `missing`: never
 * indexed, or only for definitions that differ from this one in credential values alone (another
 * user's, never shown to this one).
 */
export type IndexLookup = { status: 'fresh'; entry: IndexEntry } | { status: 'stale'; entry: IndexEntry } | { status: 'missing' };

/** What `record` did: a manifest over MAX_INDEXED_BYTES is not kept (and the server's earlier entry goes), with the reason. */
export type RecordOutcome = { stored: true } | { stored: false; reason: string };

/**
 * The file's servers: those of the user's config (and plain configs) by name, and each project's
 * by its `.mcp.json`. `configFiles`: the servers each `--config` file named when `index` last read
 * it; their entries are filed by name, and this says a config still names them.
 */
interface IndexContents {
  servers: Record<string, IndexEntry>;
  projects: Record<string, Record<string, IndexEntry>>;
  configFiles: Record<string, string[]>;
}

/** One server's entry set (or taken out: `entry` undefined) by this process, not yet on disk. */
interface EntryChange {
  server: string;
  projectFile?: string;
  entry?: IndexEntry;
}

/** The servers a `--config` file names, noted (or forgotten: `servers` undefined) by this process, not yet on disk. */
interface ConfigFileChange {
  configFile: string;
  servers?: string[];
}

type Change = EntryChange | ConfigFileChange;

export interface ManifestIndexOptions {
  /** The index file. Default `~/.ai-zen/mcp-index.json`; its key lives beside it in `<file>.key`. */
  path?: string;
  /**
   * Where the warning goes when a write replaces a file this version cannot use (another
   * version's format, not JSON), which is kept beside it as `<file>.old`. Default: stderr.
   */
  logger?: Logger;
}

/**
 * `~/.ai-zen/mcp-index.json`. Throws when HOME is empty or relative (see home-folder.ts): pass
 * `ManifestIndex` a `path` then.
 *
 * @example
 * ```ts
 * import { defaultManifestIndexPath } from 'mcp-statechart/config';
 *
 * console.log(`search reads ${defaultManifestIndexPath()}`);
 * ```
 */
export function defaultManifestIndexPath(): string {
  return join(homeFolder(), '.ai-zen', 'mcp-index.json');
}

function emptyContents(): IndexContents {
  return { servers: nameRecord<IndexEntry>(), projects: nameRecord<Record<string, IndexEntry>>(), configFiles: nameRecord<string[]>() };
}

function parseEntries(servers: unknown): Record<string, IndexEntry> {
  const entries = nameRecord<IndexEntry>();
  if (typeof servers !== 'object' || servers === null) return entries;
  for (const [name, value] of Object.entries(servers as Record<string, unknown>)) {
    const entry = parseEntry(value);
    if (!entry) continue;
    const others = (value as { others?: unknown }).others;
    const variants = Array.isArray(others) ? others.slice(0, MAX_CREDENTIAL_VARIANTS - 1).flatMap((other) => parseEntry(other) ?? []) : [];
    entries[name] = variants.length > 0 ? { ...entry, others: variants } : entry;
  }
  return entries;
}

function parseEntry(value: unknown): IndexEntry | undefined {
  const { fingerprint, indexedAt, manifest, era, instructions, credentialFree } = (value ?? {}) as Record<string, unknown>;
  const parsedManifest = parseIndexedManifest(manifest);
  if (typeof fingerprint !== 'string' || typeof indexedAt !== 'string' || !parsedManifest) return undefined;
  // All optional: a file written before any of them was kept loads without them.
  const entry = withHandshake({ fingerprint, indexedAt, manifest: parsedManifest }, { era: parseEra(era), instructions: indexedInstructions(instructions) });
  return typeof credentialFree === 'string' ? { ...entry, credentialFree } : entry;
}

/** The variant recorded under this fingerprint (the entry itself or one of its others), if any. */
function variantOf(entry: IndexEntry, fingerprint: string): IndexEntry | undefined {
  if (entry.fingerprint === fingerprint) return entry;
  return entry.others?.find((other) => other.fingerprint === fingerprint);
}

/**
 * The server's entry with `variant` in place of the one of its fingerprint (or, `variant`
 * undefined, without it), the most recent first; undefined when no variant is left. Variants are
 * kept only while they differ from the newest in credential values alone: an edited definition
 * replaces them all, as it replaces the one entry of a single user.
 */
function withVariant(entry: IndexEntry | undefined, fingerprint: string, variant: IndexEntry | undefined, newest: boolean): IndexEntry | undefined {
  const all = entry ? [entry, ...(entry.others ?? [])].map(({ others: _others, ...one }) => one) : [];
  const at = all.findIndex((one) => one.fingerprint === fingerprint);
  if (at >= 0) all.splice(at, 1);
  if (variant) {
    const { others: _others, ...one } = variant;
    all.splice(newest || at < 0 ? 0 : at, 0, one);
  }
  const [first, ...rest] = all;
  if (!first) return undefined;
  const others = rest.filter((one) => first.credentialFree !== undefined && one.credentialFree === first.credentialFree).slice(0, MAX_CREDENTIAL_VARIANTS - 1);
  return others.length > 0 ? { ...first, others } : first;
}

/** An era read back from the file; anything else (hand-edited, another version) is no era: the server is probed. */
function parseEra(value: unknown): PriorDiscovery | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { kind, discover } = value as Record<string, unknown>;
  if (kind === 'legacy') return { kind };
  if (kind !== 'modern' || typeof discover !== 'object' || discover === null) return undefined;
  const { supportedVersions, capabilities } = discover as Record<string, unknown>;
  if (!Array.isArray(supportedVersions) || !supportedVersions.every((version) => typeof version === 'string')) return undefined;
  if (typeof capabilities !== 'object' || capabilities === null) return undefined;
  return keptEra({ kind, discover } as PriorDiscovery);
}

/**
 * The era as the index keeps it: a 2026-07-28 server's `server/discover` answer carries its
 * instructions too (a connect from the era takes them from there), bounded as the entry's own.
 */
function keptEra(era: PriorDiscovery | undefined): PriorDiscovery | undefined {
  if (era?.kind !== 'modern' || era.discover.instructions === undefined) return era;
  const { instructions, ...discover } = era.discover;
  const kept = indexedInstructions(instructions);
  return { kind: 'modern', discover: kept ? { ...discover, instructions: kept } : discover };
}

/** The entry with the era and instructions that are there (an absent one is no key at all in the file). */
function withHandshake(entry: IndexEntry, { era, instructions }: Pick<IndexEntry, 'era' | 'instructions'>): IndexEntry {
  return { ...entry, ...(era ? { era } : {}), ...(instructions ? { instructions } : {}) };
}

/** What the file holds; `unreadable` says why nothing could be taken from a file that is there. */
interface ReadIndex {
  contents: IndexContents;
  unreadable?: string;
}

function parseContents(text: string): ReadIndex {
  const contents = emptyContents();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { contents, unreadable: 'it is not valid JSON' };
  }
  const { version, servers, projects, configFiles } = (parsed ?? {}) as { version?: unknown; servers?: unknown; projects?: unknown; configFiles?: unknown };
  if (version !== FORMAT_VERSION) {
    return { contents, unreadable: `it is in index format ${JSON.stringify(version) ?? 'none'} (another version of mcp-statechart wrote it), and this one reads format ${FORMAT_VERSION}` };
  }
  if (typeof servers !== 'object' || servers === null) return { contents, unreadable: 'it has no "servers" object' };
  contents.servers = parseEntries(servers);
  if (typeof projects === 'object' && projects !== null) {
    for (const [projectFile, entries] of Object.entries(projects as Record<string, unknown>)) contents.projects[projectFile] = parseEntries(entries);
  }
  // Optional: a file written before it was kept has none (its `--config` servers count as unnamed until indexed again).
  if (typeof configFiles === 'object' && configFiles !== null) {
    for (const [configFile, names] of Object.entries(configFiles as Record<string, unknown>)) {
      if (Array.isArray(names)) contents.configFiles[configFile] = names.filter((name): name is string => typeof name === 'string');
    }
  }
  return { contents };
}

function tooBig(bytes: number): ReadIndex | undefined {
  return bytes > MAX_FILE_BYTES ? { contents: emptyContents(), unreadable: `it is over ${megabytes(MAX_FILE_BYTES)}` } : undefined;
}

/** A file that is not there is an empty index, and nothing to report. */
function unreadableFile(error: unknown): ReadIndex {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? { contents: emptyContents() } : { contents: emptyContents(), unreadable: `it cannot be read (${code ?? 'error'})` };
}

function readContents(file: string): ReadIndex {
  const read = readRegularFileSync(file, MAX_FILE_BYTES);
  if (read.kind === 'missing') return { contents: emptyContents() };
  if (read.kind === 'unreadable') return tooBig(read.bytes ?? 0) ?? { contents: emptyContents(), unreadable: `it ${read.reason}` };
  return parseContents(read.bytes.toString('utf8'));
}

async function readContentsAsync(file: string): Promise<ReadIndex> {
  try {
    const read = await readRegularFile(file, { maxBytes: MAX_FILE_BYTES });
    if (read.kind === 'missing') return { contents: emptyContents() };
    if (read.kind === 'unreadable') return tooBig(read.bytes ?? 0) ?? { contents: emptyContents(), unreadable: `it ${read.reason}` };
    return parseContents(read.bytes.toString('utf8'));
  } catch (error) {
    return unreadableFile(error);
  }
}

/**
 * Why the index file at this path gives nothing (not JSON, another version's format, unreadable),
 * or undefined when it is missing or fine: an empty search can then say why, not "run index".
 */
export function unreadableIndexReason(file: string = defaultManifestIndexPath()): string | undefined {
  return readContents(file).unreadable;
}

/** A copy with the changes made; entries they do not touch are the same objects (search's cached words for them stay valid). */
function applyChanges(contents: IndexContents, changes: Iterable<Change>): IndexContents {
  let servers: Record<string, IndexEntry> | undefined;
  let projects: Record<string, Record<string, IndexEntry>> | undefined;
  let configFiles: Record<string, string[]> | undefined;
  const copied = new Set<string>();
  for (const change of changes) {
    if ('configFile' in change) {
      configFiles ??= nameRecord(contents.configFiles);
      if (change.servers) configFiles[change.configFile] = change.servers;
      else delete configFiles[change.configFile];
      continue;
    }
    const { server, projectFile, entry } = change;
    let entries: Record<string, IndexEntry>;
    if (projectFile === undefined) {
      entries = servers ??= nameRecord(contents.servers);
    } else {
      projects ??= nameRecord(contents.projects);
      if (!copied.has(projectFile)) {
        projects[projectFile] = nameRecord(projects[projectFile]);
        copied.add(projectFile);
      }
      entries = projects[projectFile]!;
    }
    if (entry) entries[server] = entry;
    else delete entries[server];
  }
  return { servers: servers ?? contents.servers, projects: projects ?? contents.projects, configFiles: configFiles ?? contents.configFiles };
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

/**
 * `projectFiles` for `indexServers` and `recordManifests`, from discovery's servers: the
 * `.mcp.json` of each project server, by name.
 *
 * @example
 * ```ts
 * import { ManifestIndex } from 'mcp-statechart';
 * import { discoverMcpServers, enabledServers, indexServers, projectFilesOf } from 'mcp-statechart/config';
 *
 * const { servers } = await discoverMcpServers();
 * await indexServers({ servers: enabledServers(servers), projectFiles: projectFilesOf(servers), index: new ManifestIndex() });
 * ```
 */
export function projectFilesOf(servers: Record<string, { scope?: string; source?: string }>): Record<string, string> {
  const files = nameRecord<string>();
  for (const [name, server] of Object.entries(servers)) {
    const file = projectFileOf(server);
    if (file !== undefined) files[name] = file;
  }
  return files;
}

function stampOf(stats: Stats): string {
  return `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
}

function fileStamp(file: string): string {
  try {
    return stampOf(statSync(file));
  } catch {
    return 'none';
  }
}

async function fileStampAsync(file: string): Promise<string> {
  try {
    return stampOf(await stat(file));
  } catch {
    return 'none';
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What one index file holds in this process, shared by every `ManifestIndex` of that file. */
class IndexFile {
  key?: Buffer;
  contents: IndexContents;
  /** Grows whenever `contents` may have changed. */
  changes = 0;
  /** The file as we last read or wrote it: another stamp means another process replaced it. */
  private stamp: string;
  /** Changes not yet written, by server and project file; those of the write under way. */
  private pending = new Map<string, Change>();
  private writing = new Map<string, Change>();
  private written?: Promise<void>;
  /** Why the file as last read could not be used: the next write keeps it as `<file>.old` and says so. */
  private unusable?: string;

  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {
    this.stamp = fileStamp(path);
    this.contents = this.usable(readContents(path));
  }

  /** What a read of the file gives, remembering why it could not be used, if so. */
  private usable({ contents, unreadable }: ReadIndex): IndexContents {
    this.unusable = unreadable;
    return contents;
  }

  /**
   * Looked at the file's stamp already in this synchronous run: exposure and search over 10,000
   * servers ask the index's version once per server, and a stat each cost 170 ms. A write that
   * replaced the file is seen from the next run on (after the next await).
   */
  private checkedThisTurn = false;

  reloadIfReplaced(): void {
    if (this.checkedThisTurn) return;
    this.checkedThisTurn = true;
    queueMicrotask(() => {
      this.checkedThisTurn = false;
    });
    const stamp = fileStamp(this.path);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.contents = applyChanges(this.usable(readContents(this.path)), [...this.writing.values(), ...this.pending.values()]);
    this.changes++;
  }

  change(change: Change): void {
    this.reloadIfReplaced();
    this.contents = applyChanges(this.contents, [change]);
    this.changes++;
    this.pending.set(JSON.stringify('configFile' in change ? ['--config', change.configFile] : [change.projectFile ?? null, change.server]), change);
    this.written ??= this.startWriting();
  }

  flush(): Promise<void> {
    if (this.pending.size > 0) this.written ??= this.startWriting();
    return this.written ?? Promise.resolve();
  }

  private startWriting(): Promise<void> {
    const written = this.writeAll();
    // Whoever awaits flush() hears of a failure; nobody awaiting is not an unhandled rejection.
    written.catch(() => {});
    return written;
  }

  private async writeAll(): Promise<void> {
    try {
      // Everything recorded in this turn of the event loop goes into the first write.
      await new Promise((next) => setImmediate(next));
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      while (this.pending.size > 0) await withFileLock(`${this.path}.lock`, () => this.writeUnderLock());
    } catch (error) {
      // Kept for the next write, unless recorded again since.
      for (const [slot, change] of this.writing) if (!this.pending.has(slot)) this.pending.set(slot, change);
      throw error;
    } finally {
      this.writing = new Map();
      this.written = undefined;
    }
  }

  private async writeUnderLock(): Promise<void> {
    for (const [slot, change] of this.pending) this.writing.set(slot, change);
    this.pending = new Map();
    // Nobody else wrote since we last read or wrote: what we hold is the file plus our changes.
    const reread = (await fileStampAsync(this.path)) !== this.stamp;
    const merged = reread ? applyChanges(this.usable(await readContentsAsync(this.path)), this.writing.values()) : this.contents;
    removeLeftStagedCopies(this.path);
    const temporary = stagedCopyPath(this.path);
    let stats: Stats;
    try {
      const file = await open(temporary, 'wx', 0o600);
      try {
        await file.writeFile(JSON.stringify({ version: FORMAT_VERSION, ...merged }));
        // The renamed file keeps this inode, size and time: it is the stamp of what we wrote.
        stats = await file.stat();
      } finally {
        await file.close();
      }
      if (this.unusable !== undefined) await this.keepUnusable(this.unusable);
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    this.stamp = stampOf(stats);
    this.unusable = undefined;
    this.writing = new Map();
    if (reread) {
      this.contents = applyChanges(merged, this.pending.values());
      this.changes++;
    }
  }

  /** Never lost silently: another version's index (or a hand-edited one) is kept beside the new one, and named. */
  private async keepUnusable(reason: string): Promise<void> {
    const kept = `${this.path}.old`;
    // One `.old` only, the latest: two versions taking turns on one file would otherwise leave a trail of them.
    const keptBefore = await lstat(kept).then(
      () => true,
      () => false,
    );
    try {
      // A folder in the file's place is no index to keep: the write fails on it, as before.
      if (!(await lstat(this.path)).isFile()) return;
      await rename(this.path, kept);
    } catch (error) {
      // Gone meanwhile: nothing to keep.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const replaced = keptBefore ? ', in place of the file an earlier replacement kept there' : '';
    this.logger.warn(`the manifest index ${this.path} is replaced by this version's: ${reason}; the old file is kept as ${kept}${replaced}`);
  }
}

/**
 * One per file and process: every `ManifestIndex` of a file sees what the others recorded, and their
 * writes are one. Held weakly: a program with an index per user keeps none of a user who left (a
 * write under way holds its file until it is done).
 */
const files = new Map<string, WeakRef<IndexFile>>();
const letGo = new FinalizationRegistry<string>((absolute) => {
  if (files.get(absolute)?.deref() === undefined) files.delete(absolute);
});

/**
 * @example
 * ```ts
 * import { createLoaderTools, McpConnectionManager, ManifestIndex } from 'mcp-statechart';
 *
 * const manager = new McpConnectionManager();
 * const manifestIndex = new ManifestIndex({ path: '/tmp/mcp-index.json' });
 * const tools = createLoaderTools({ manager, servers: {}, manifestIndex });
 * console.log(tools.map((tool) => tool.name));
 * ```
 */
export class ManifestIndex {
  readonly path: string;
  private readonly file: IndexFile;

  constructor(options: ManifestIndexOptions = {}) {
    this.path = options.path ?? defaultManifestIndexPath();
    const absolute = resolve(this.path);
    let file = files.get(absolute)?.deref();
    if (!file) {
      file = new IndexFile(absolute, options.logger ?? stderrLogger);
      files.set(absolute, new WeakRef(file));
      letGo.register(file, absolute);
    }
    this.file = file;
  }

  /** Grows whenever what the index holds may have changed; search rebuilds its ranking when it does. */
  get version(): number {
    this.file.reloadIfReplaced();
    return this.file.changes;
  }

  /** Whether any server has been indexed (by this process or another): tool search is offered by default only then. */
  get isEmpty(): boolean {
    this.file.reloadIfReplaced();
    const { servers, projects } = this.file.contents;
    return Object.keys(servers).length === 0 && Object.values(projects).every((entries) => Object.keys(entries).length === 0);
  }

  /** Read (or made) on first use: a command that only lists servers creates no key when nothing is indexed. */
  fingerprint(config: McpServerConfig): string {
    return definitionFingerprint(this.key(), config);
  }

  private key(): Buffer {
    return (this.file.key ??= loadOrCreateKey(`${this.file.path}.key`));
  }

  /** `projectFile`: the `.mcp.json` of a project server (see `projectFilesOf`); without it, the entry shared by name. */
  lookup(server: string, config: McpServerConfig, projectFile?: string): IndexLookup {
    this.file.reloadIfReplaced();
    return this.lookupEntry(entryOf(this.file.contents, server, projectFile), config);
  }

  /**
   * The entry of a server as last read, without looking at the file again (`version` does) or
   * working out a fingerprint: an entry not replaced since is the same object, so a caller that
   * looked it up for the same definition already knows whether it is fresh.
   */
  entry(server: string, projectFile?: string): IndexEntry | undefined {
    return entryOf(this.file.contents, server, projectFile);
  }

  /** Whether an entry was recorded for this definition. */
  lookupEntry(entry: IndexEntry | undefined, config: McpServerConfig): IndexLookup {
    if (!entry) return { status: 'missing' };
    const mine = variantOf(entry, this.fingerprint(config));
    if (mine) return { status: 'fresh', entry: mine };
    // Recorded only with other credentials: another user's tools, not an earlier definition of this one's.
    if (entry.credentialFree !== undefined && entry.credentialFree === credentialFreeFingerprint(this.key(), config)) return { status: 'missing' };
    return { status: 'stale', entry };
  }

  /**
   * Stores the manifest under this definition: seen by lookups at once, written to the file in
   * the background (`flush` waits for it). A manifest whose kept part is over MAX_INDEXED_BYTES
   * is not stored, and the server's earlier entry is taken out (it no longer says what the
   * server offers): search then reports the server as not indexed, and load_mcp shows its tools.
   * `handshake`: what the server said as it connected, its era and its instructions (kept without
   * control characters, cut at MAX_PURPOSE_CHARACTERS characters).
   */
  record(
    server: string,
    config: McpServerConfig,
    manifest: McpServerManifest,
    projectFile?: string,
    handshake: Pick<IndexEntry, 'era' | 'instructions'> = {},
  ): RecordOutcome {
    // Written to disk: a description or the instructions may quote a value of the entry, a resource's URI carry a credential (src/redact.ts).
    const secrets = secretsOf(config);
    const kept = manifestAtRest(indexedManifest(manifest), secrets);
    const bytes = Buffer.byteLength(JSON.stringify(kept));
    this.file.reloadIfReplaced();
    const before = entryOf(this.file.contents, server, projectFile);
    const fingerprint = this.fingerprint(config);
    const credentialFree = credentialFreeFingerprint(this.key(), config);
    if (bytes > MAX_INDEXED_BYTES) {
      // Other users' entries of this very definition stay; an earlier definition's goes.
      const othersKept = before?.credentialFree === credentialFree ? withVariant(before, fingerprint, undefined, false) : undefined;
      if (before) this.file.change({ server, projectFile, entry: othersKept });
      return {
        stored: false,
        reason: `its manifest takes ${megabytes(bytes)}, over the ${megabytes(MAX_INDEXED_BYTES)} the index keeps of one server`,
      };
    }
    const entry: IndexEntry = { fingerprint, indexedAt: new Date().toISOString(), manifest: kept, credentialFree };
    const { era, instructions } = handshake;
    const handshakeKept = redactStrings({ era: keptEra(era), instructions: indexedInstructions(instructions) }, secrets);
    this.file.change({ server, projectFile, entry: withVariant(before, fingerprint, withHandshake(entry, handshakeKept), true) });
    return { stored: true };
  }

  /** The era recorded with this very definition's manifest, if any. */
  recallEra(server: string, config: McpServerConfig, projectFile?: string): PriorDiscovery | undefined {
    const lookup = this.lookup(server, config, projectFile);
    return lookup.status === 'fresh' ? lookup.entry.era : undefined;
  }

  /** Drops the era recorded for this definition (the server refused it), keeping the manifest. */
  forgetEra(server: string, config: McpServerConfig, projectFile?: string): void {
    const lookup = this.lookup(server, config, projectFile);
    if (lookup.status !== 'fresh' || !lookup.entry.era) return;
    const { era: _forgotten, ...entry } = lookup.entry;
    this.file.change({ server, projectFile, entry: withVariant(this.entry(server, projectFile), entry.fingerprint, entry, false) });
  }

  /**
   * Notes, with the next write, the servers a config file given with `--config` names (`servers`:
   * all it lists, disabled too): their entries are filed by name, as the user's are, and
   * `forgetUnnamed` keeps them while that file is there.
   */
  noteConfigFile(configFile: string, servers: readonly string[]): void {
    this.file.change({ configFile, servers: [...new Set(servers)].sort() });
  }

  /**
   * Takes out, with the next write, the entries of servers no config names any more: those filed
   * by name (the user's servers, plain configs) whose name is not in `named` nor in a noted
   * `--config` file still there (see `noteConfigFile`), and those filed under `projectFile` that
   * it no longer names. Other projects' entries stay: their files were not read. The notes of
   * `--config` files that are gone go too. `named` must hold every server the configs list,
   * disabled and awaiting approval too. Returns the names taken out, sorted.
   */
  forgetUnnamed(named: ReadonlySet<string>, projectFile?: string): string[] {
    this.file.reloadIfReplaced();
    const { servers, projects, configFiles } = this.file.contents;
    const namedByConfigFiles = new Set<string>();
    for (const [configFile, names] of Object.entries(configFiles)) {
      if (existsSync(configFile)) for (const name of names) namedByConfigFiles.add(name);
      else this.file.change({ configFile });
    }
    const forgotten: string[] = [];
    const forget = (entries: Record<string, IndexEntry> | undefined, file: string | undefined) => {
      for (const server of Object.keys(entries ?? {})) {
        if (named.has(server) || (file === undefined && namedByConfigFiles.has(server))) continue;
        this.file.change({ server, projectFile: file });
        forgotten.push(server);
      }
    };
    forget(servers, undefined);
    if (projectFile !== undefined) forget(projects[projectFile], projectFile);
    return [...new Set(forgotten)].sort();
  }

  /**
   * Takes out, with the next write, the entries filed under project config files that are gone
   * (a deleted `.mcp.json`, a removed checkout): nothing will read those files to ask for them
   * again. Returns each such file with the names taken out, sorted.
   */
  forgetProjectsWithoutFile(): Array<{ projectFile: string; servers: string[] }> {
    this.file.reloadIfReplaced();
    const gone: Array<{ projectFile: string; servers: string[] }> = [];
    for (const [projectFile, entries] of Object.entries(this.file.contents.projects)) {
      const servers = Object.keys(entries).sort();
      if (servers.length === 0 || existsSync(projectFile)) continue;
      for (const server of servers) this.file.change({ server, projectFile });
      gone.push({ projectFile, servers });
    }
    return gone;
  }

  /** Resolves once everything recorded so far (by any `ManifestIndex` of this file in this process) is on disk; rejects when a write failed. */
  flush(): Promise<void> {
    return this.file.flush();
  }
}

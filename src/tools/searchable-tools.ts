/**
 * The tools search ranks: those of every allowed server that is connected (its live manifest and
 * instructions) or indexed for its current definition (the index's manifest and instructions). The ranking is kept up to date
 * server by server: a connection or an index write re-indexes the servers whose tools changed,
 * so a search costs the query alone and the first one after a change little more.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../machines/types.js';
import { indexedInstructions, isPastTtl, type IndexEntry, type IndexLookup, type ManifestIndex } from '../manifest-index/index.js';
import { embeddingText, ToolSearch, vectorWeightOf, VectorStore, type RankedTool, type SearchableTool, type SemanticSearchOptions } from '../search/index.js';
import type { ServerCatalog } from './server-catalog.js';
import type { LoaderToolsManager } from './types.js';

export type ToolSource = 'connected' | 'index';

export interface SearchSnapshot {
  search: ToolSearch;
  /** Where each searchable server's tools came from. */
  sources: Map<string, ToolSource>;
  /** Tool counts of the servers search knows. */
  toolCounts: Map<string, number>;
  /** The index entry of each server whose tools came from the index (past its `ttlMs` or not: that depends on when it is read). */
  indexed: Map<string, IndexEntry>;
  /** Allowed servers with no manifest for their current definition: never indexed … */
  notIndexed: string[];
  /** … or indexed for a definition that has changed since (when it was indexed). */
  stale: Array<{ name: string; indexedAt: string }>;
}

/**
 * How often a manager's connections or manifests changed. One counter, and one pair of listeners,
 * per manager: loader tools rebuilt on every config change (serve) share it instead of each
 * adding listeners the manager keeps for as long as it lives.
 */
const liveChangeCounters = new WeakMap<LoaderToolsManager, { count: number }>();

function liveChangesOf(manager: LoaderToolsManager): { readonly count: number } {
  const known = liveChangeCounters.get(manager);
  if (known) return known;
  const counter = { count: 0 };
  const changed = () => {
    counter.count++;
  };
  manager.on('mcp.stateChanged', changed);
  manager.on('mcp.manifestChanged', changed);
  liveChangeCounters.set(manager, counter);
  return counter;
}

/** Where a server's tools came from last time: the same list from the same place means nothing to re-index. */
interface SourcedTools {
  source: ToolSource;
  listed: readonly Tool[];
  instructions?: string;
}

export class SearchableTools {
  private readonly liveChanges: { readonly count: number };
  private readonly search = new ToolSearch();
  private readonly sourced = new Map<string, SourcedTools>();
  /**
   * Each server's last index lookup: while its entry and definition are the same objects, it
   * stands (a lookup works out a keyed hash of the definition: at 10,000 tools, done for every
   * server after each change, that was most of the first search's time).
   */
  private readonly looked = new Map<string, { entry: IndexEntry; config: McpServerConfig; lookup: IndexLookup }>();
  private built?: { key: string; snapshot: SearchSnapshot };
  /** The semantic stage, when the application gave an embedding function. */
  private readonly vectors?: VectorStore;
  /** How much the vectors' ranking weighs against the words' (`search.vectorWeight`). */
  private readonly vectorWeight: number;
  private readonly vectorOfTool = new WeakMap<Tool, Float32Array>();
  /** Embedding of the tools the last updates brought in; a search waits for it. */
  private embedding: Promise<void> = Promise.resolve();
  private embeddingFailure?: string;

  constructor(
    private readonly manager: LoaderToolsManager,
    private readonly catalog: ServerCatalog,
    private readonly index: ManifestIndex,
    semantic?: SemanticSearchOptions,
    /** Servers whose index entries this manager must not read (one user's own tools in an index shared by all): known only live. */
    private readonly unshared: ReadonlySet<string> = new Set(),
  ) {
    this.liveChanges = liveChangesOf(manager);
    this.vectorWeight = vectorWeightOf(semantic?.vectorWeight);
    // Beside the index: a restart embeds only tools whose text changed. At weight 0 vectors would not move the ranking: none are made.
    if (semantic && this.vectorWeight > 0) this.vectors = new VectorStore(semantic, `${index.path}.vectors.json`);
  }

  /**
   * The best tools for a query: by their words, fused with vector similarity when the semantic
   * stage is on (it falls back to words alone, with a note, when the embedding function fails).
   */
  async rank(query: string, limit: number, server?: string): Promise<{ tools: RankedTool[]; note?: string }> {
    const { search } = this.current();
    const vectors = this.vectors;
    if (!vectors) return { tools: search.searchTools(query, limit, server) };
    await this.embedding;
    try {
      if (this.embeddingFailure) throw new Error(this.embeddingFailure);
      const queryVector = await vectors.embedQuery(query);
      const vectorOf = ({ server: name, tool }: SearchableTool) => {
        let vector = this.vectorOfTool.get(tool);
        if (!vector) {
          vector = vectors.get(embeddingText(name, tool));
          if (vector) this.vectorOfTool.set(tool, vector);
        }
        return vector;
      };
      return { tools: search.searchToolsHybrid(query, limit, server, queryVector, vectorOf, this.vectorWeight) };
    } catch (error) {
      return { tools: search.searchTools(query, limit, server), note: `Ranked by words only: the embedding function failed (${(error as Error).message.slice(0, 200)}).` };
    }
  }

  /** Brought up to date first when a connection or the index changed: only the servers whose tools changed are re-indexed. */
  current(): SearchSnapshot {
    const key = `${this.liveChanges.count}:${this.index.version}:${this.catalog.switches}`;
    if (this.built?.key !== key) this.built = { key, snapshot: this.update() };
    return this.built.snapshot;
  }

  /** The tools of a server as search knows them: live when connected, else from the index for its current definition. */
  toolsOf(server: string): Tool[] | undefined {
    const snapshot = this.current();
    if (!snapshot.sources.has(server)) return undefined;
    return this.liveTools(server) ?? this.indexedTools(server);
  }

  /**
   * Whether the tools search knows of a server come from an index entry past the `ttlMs` its
   * server gave the list: still answered from, but the next request reads the tools live.
   */
  indexedPastTtl(server: string, now = Date.now()): boolean {
    const entry = this.current().indexed.get(server);
    return entry !== undefined && isPastTtl(entry, now);
  }

  /** Tools the permissions deny are never searched, listed or counted. */
  private allowed(server: string, tools: readonly Tool[] | undefined): Tool[] | undefined {
    return tools?.filter((tool) => this.catalog.allowsTool(server, tool.name));
  }

  private liveTools(server: string): Tool[] | undefined {
    return this.manager.getState(server) === 'connected' ? this.allowed(server, this.manager.getManifest(server)?.tools) : undefined;
  }

  private indexedTools(server: string): Tool[] | undefined {
    const lookup = this.lookup(server, this.catalog.configs[server]!, this.catalog.projectFiles[server]);
    return lookup.status === 'fresh' ? this.allowed(server, lookup.entry.manifest.tools) : undefined;
  }

  /** The index's lookup, remembered per server until its entry or definition is another object. */
  private lookup(server: string, config: McpServerConfig, projectFile: string | undefined): IndexLookup {
    if (this.unshared.has(server)) return { status: 'missing' };
    const entry = this.index.entry(server, projectFile);
    const known = this.looked.get(server);
    if (known && known.entry === entry && known.config === config) return known.lookup;
    const lookup = this.index.lookupEntry(entry, config);
    if (entry) this.looked.set(server, { entry, config, lookup });
    else this.looked.delete(server);
    return lookup;
  }

  private update(): SearchSnapshot {
    const sources = new Map<string, ToolSource>();
    const toolCounts = new Map<string, number>();
    const indexed = new Map<string, IndexEntry>();
    const notIndexed: string[] = [];
    const stale: SearchSnapshot['stale'] = [];
    const toEmbed: string[] = [];
    for (const server of this.catalog.available) {
      const { name, config, projectFile } = server;
      if (this.catalog.switchedOff.has(name)) {
        this.forget(name);
        continue;
      }
      const liveList = this.manager.getState(name) === 'connected' ? this.manager.getManifest(name)?.tools : undefined;
      const lookup = liveList ? undefined : this.lookup(name, config, projectFile);
      const listed = liveList ?? (lookup?.status === 'fresh' ? lookup.entry.manifest.tools : undefined);
      if (!listed) {
        this.forget(name);
        if (lookup?.status === 'stale') stale.push({ name, indexedAt: lookup.entry.indexedAt });
        else notIndexed.push(name);
        continue;
      }
      const source: ToolSource = liveList ? 'connected' : 'index';
      // Bounded as the index keeps them, so a server ranks the same whether connected or only indexed.
      const instructions = liveList ? indexedInstructions(this.manager.getClient(name)?.getInstructions()) : lookup?.status === 'fresh' ? lookup.entry.instructions : undefined;
      const before = this.sourced.get(name);
      if (before?.listed !== listed || before.source !== source || before.instructions !== instructions) {
        const tools = this.allowed(name, listed)!;
        this.search.setServer({ name, description: server.description, instructions }, tools);
        this.sourced.set(name, { source, listed, instructions });
        if (this.vectors) for (const tool of tools) toEmbed.push(embeddingText(name, tool));
      }
      sources.set(name, source);
      if (lookup?.status === 'fresh') indexed.set(name, lookup.entry);
      toolCounts.set(name, this.search.indexed(name)!.tools.length);
    }
    if (this.vectors && toEmbed.length > 0) this.embed(this.vectors, toEmbed);
    return { search: this.search, sources, toolCounts, indexed, notIndexed, stale };
  }

  private embed(vectors: VectorStore, texts: string[]): void {
    this.embedding = this.embedding.then(() =>
      vectors.ensure(texts).then(
        () => {
          this.embeddingFailure = undefined;
        },
        (error: unknown) => {
          this.embeddingFailure = (error as Error).message;
        },
      ),
    );
  }

  private forget(name: string): void {
    if (!this.sourced.delete(name)) return;
    this.search.removeServer(name);
  }
}

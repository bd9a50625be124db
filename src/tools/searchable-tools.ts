/**
 * The tools search ranks: those of every allowed server that is connected (its live manifest)
 * or indexed for its current definition (the index's manifest). The ranking is built once and
 * rebuilt only when a connection or the index changes, so a search costs the query alone.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ManifestIndex } from '../manifest-index/index.js';
import { ToolSearch, type SearchableTool } from '../search/index.js';
import type { ServerCatalog } from './server-catalog.js';
import type { LoaderToolsManager } from './types.js';

export type ToolSource = 'connected' | 'index';

export interface SearchSnapshot {
  search: ToolSearch;
  /** Where each searchable server's tools came from. */
  sources: Map<string, ToolSource>;
  /** Tool counts of the servers search knows. */
  toolCounts: Map<string, number>;
  /** Allowed servers with no manifest for their current definition: never indexed … */
  notIndexed: string[];
  /** … or indexed for a definition that has changed since. */
  stale: string[];
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

export class SearchableTools {
  private readonly liveChanges: { readonly count: number };
  private built?: { key: string; snapshot: SearchSnapshot };

  constructor(
    private readonly manager: LoaderToolsManager,
    private readonly catalog: ServerCatalog,
    private readonly index: ManifestIndex,
  ) {
    this.liveChanges = liveChangesOf(manager);
  }

  current(): SearchSnapshot {
    const key = `${this.liveChanges.count}:${this.index.version}`;
    if (this.built?.key !== key) this.built = { key, snapshot: this.build() };
    return this.built.snapshot;
  }

  /** The tools of a server as search knows them: live when connected, else from the index for its current definition. */
  toolsOf(server: string): Tool[] | undefined {
    const snapshot = this.current();
    if (!snapshot.sources.has(server)) return undefined;
    return this.liveTools(server) ?? this.indexedTools(server);
  }

  /** Tools the permissions deny are never searched, listed or counted. */
  private allowed(server: string, tools: Tool[] | undefined): Tool[] | undefined {
    return tools?.filter((tool) => this.catalog.allowsTool(server, tool.name));
  }

  private liveTools(server: string): Tool[] | undefined {
    return this.manager.getState(server) === 'connected' ? this.allowed(server, this.manager.getManifest(server)?.tools) : undefined;
  }

  private indexedTools(server: string): Tool[] | undefined {
    const lookup = this.index.lookup(server, this.catalog.configs[server]!, this.catalog.projectFiles[server]);
    return lookup.status === 'fresh' ? this.allowed(server, lookup.entry.manifest.tools) : undefined;
  }

  private build(): SearchSnapshot {
    const tools: SearchableTool[] = [];
    const sources = new Map<string, ToolSource>();
    const toolCounts = new Map<string, number>();
    const notIndexed: string[] = [];
    const stale: string[] = [];
    for (const { name, config, projectFile } of this.catalog.available) {
      const live = this.liveTools(name);
      const lookup = live ? undefined : this.index.lookup(name, config, projectFile);
      const found = live ?? (lookup?.status === 'fresh' ? this.allowed(name, lookup.entry.manifest.tools) : undefined);
      if (found) {
        sources.set(name, live ? 'connected' : 'index');
        toolCounts.set(name, found.length);
        for (const tool of found) tools.push({ server: name, tool });
      } else if (lookup?.status === 'stale') {
        stale.push(name);
      } else {
        notIndexed.push(name);
      }
    }
    // The catalog's own objects, so the ranking's cache of their words survives a rebuild.
    return { search: new ToolSearch(this.catalog.available, tools), sources, toolCounts, notIndexed, stale };
  }
}

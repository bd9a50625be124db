/**
 * Ranking tools (and servers) by relevance to a natural-language query. A tool is its name (the
 * weightiest words), its title and description, its parameter names, and its server's name and
 * description (so "in our GitLab" tells apart two servers' `create_issue`). A query that is
 * exactly a tool's name (or `server/tool`) puts that tool first whatever the words say.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Bm25Index, type WeightedFields } from './bm25.js';
import { identifierTokens, textTokens } from './tokenize.js';

export interface SearchableTool {
  server: string;
  tool: Tool;
}

export interface SearchableServer {
  name: string;
  description?: string;
}

export interface RankedTool extends SearchableTool {
  score: number;
}

const NAME_WEIGHT = 3;
const PARAMETER_WEIGHT = 1;
const DESCRIPTION_WEIGHT = 1;
const SERVER_WEIGHT = 1;
/** Above any BM25 score: an exact name wins. */
const EXACT_NAME_SCORE = 1e9;

function parameterNames(tool: Tool): string[] {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

function serverFields(server: SearchableServer, weight: number): WeightedFields {
  return [
    { tokens: identifierTokens(server.name), weight: weight * NAME_WEIGHT },
    { tokens: textTokens(server.description ?? ''), weight },
  ];
}

/**
 * Words are cached per tool and server object: a ranking rebuilt after one server connects
 * tokenizes that server's tools only (the index and the live manifests keep the others' objects).
 */
const ownFieldsCache = new WeakMap<Tool, WeightedFields>();
const serverFieldsCache = new WeakMap<SearchableServer, WeightedFields>();

function ownFields(tool: Tool): WeightedFields {
  let fields = ownFieldsCache.get(tool);
  if (!fields) {
    fields = [
      { tokens: identifierTokens(tool.name), weight: NAME_WEIGHT },
      { tokens: textTokens(`${tool.title ?? ''} ${tool.description ?? ''}`), weight: DESCRIPTION_WEIGHT },
      { tokens: parameterNames(tool).flatMap(identifierTokens), weight: PARAMETER_WEIGHT },
    ];
    ownFieldsCache.set(tool, fields);
  }
  return fields;
}

/** A server's words as part of each of its tools: they count less than the tool's own name. */
function serverFieldsOfTools(server: SearchableServer): WeightedFields {
  let fields = serverFieldsCache.get(server);
  if (!fields) {
    fields = serverFields(server, SERVER_WEIGHT / NAME_WEIGHT);
    serverFieldsCache.set(server, fields);
  }
  return fields;
}

/** Builds once over a set of servers' tools; ranks many queries. */
export class ToolSearch {
  private readonly tools: SearchableTool[];
  private readonly toolIndex: Bm25Index;
  private readonly byExactName = new Map<string, number[]>();
  private readonly servers: SearchableServer[];
  private readonly serverIndex: Bm25Index;

  constructor(servers: readonly SearchableServer[], tools: readonly SearchableTool[]) {
    this.servers = [...servers];
    this.tools = [...tools];
    const serverByName = new Map(servers.map((server) => [server.name, server]));
    this.toolIndex = new Bm25Index(
      this.tools.map(({ server, tool }) => [...ownFields(tool), ...serverFieldsOfTools(serverByName.get(server) ?? { name: server })]),
    );
    this.tools.forEach(({ server, tool }, doc) => {
      for (const key of [tool.name.toLowerCase(), `${server}/${tool.name}`.toLowerCase()]) {
        const docs = this.byExactName.get(key);
        if (docs) docs.push(doc);
        else this.byExactName.set(key, [doc]);
      }
    });
    this.serverIndex = new Bm25Index(this.servers.map((server) => serverFields(server, 1)));
  }

  get toolCount(): number {
    return this.tools.length;
  }

  /** The best `limit` tools, of one server when `server` is given. */
  searchTools(query: string, limit: number, server?: string): RankedTool[] {
    const accept = server === undefined ? undefined : (doc: number) => this.tools[doc]!.server === server;
    const exact = (this.byExactName.get(query.trim().toLowerCase()) ?? []).filter((doc) => !accept || accept(doc));
    const ranked = this.toolIndex
      .search(query, limit + exact.length, accept)
      .filter(({ doc }) => !exact.includes(doc))
      .map(({ doc, score }) => ({ ...this.tools[doc]!, score }));
    return [...exact.map((doc) => ({ ...this.tools[doc]!, score: EXACT_NAME_SCORE })), ...ranked].slice(0, limit);
  }

  /** Servers whose name or description matches the query, best first; an exact name first of all. */
  searchServers(query: string, limit: number): SearchableServer[] {
    const wanted = query.trim().toLowerCase();
    const exact = this.servers.findIndex((server) => server.name.toLowerCase() === wanted);
    const ranked = this.serverIndex.search(query, limit + 1).filter(({ doc }) => doc !== exact);
    const docs = [...(exact >= 0 ? [exact] : []), ...ranked.map(({ doc }) => doc)];
    return docs.slice(0, limit).map((doc) => this.servers[doc]!);
  }
}

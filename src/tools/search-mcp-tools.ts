/**
 * search_mcp_tools: the tools of every allowed server, connected or only indexed, ranked by
 * relevance to what the model wants to do. Reads memory only: it starts no server.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { jsonWithoutControls } from '../../machines/control-characters.js';
import type { SearchableServer } from '../search/index.js';
import { isPastPromisedFreshness } from '../manifest-index/index.js';
import { ageText, pastTtlText } from './age-text.js';
import { defineLoaderTool } from './define-tool.js';
import { listNames } from './list-names.js';
import { descriptionWithin, schemaWithoutDialect } from './manifest-summary.js';
import { okResult } from './results.js';
import { searchMcpToolsSchema } from './schemas.js';
import type { SearchableTools, SearchSnapshot } from './searchable-tools.js';
import type { LoaderToolContext } from './tool-context.js';
import type { LoaderTool } from './types.js';

const DESCRIPTION =
  'Finds tools and servers of all MCP servers, running or not, by what they do. detail: name, summary (default: with descriptions) ' +
  'or full (with input schemas; load_mcp with a tool gives one). Use it first when unsure which server has a tool, then call_mcp_tool.';

const NOTHING_SEARCHABLE =
  'No server has been loaded or indexed yet, so no tool could be searched. load_mcp lists the servers; each one loaded becomes searchable.';

/** Tools in one answer unless the model asks for another number, which is kept within 1 to the maximum. */
const SEARCH_LIMIT_DEFAULT = 5;
const SEARCH_LIMIT_MAX = 20;
/** Servers listed by name in one answer; the rest are counted. */
const NAMES_SHOWN = 20;
/** Servers found by name or purpose, beyond those of the tools found. */
const SERVERS_SHOWN = 5;
/** A server's purpose in an answer: its first line, at most this long. */
const PURPOSE_CHARACTERS = 160;

/**
 * How much of each tool an answer gives: its name only, its description too (the default), or
 * everything call_mcp_tool needs (input schema and annotations). The model looks wide at low
 * detail and narrows down; load_mcp with a tool returns one tool in full.
 */
export type SearchDetail = 'name' | 'summary' | 'full';

export interface FoundTool {
  server: string;
  tool: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: unknown;
}

/** A server of the answer: each server of the tools found, in their order, then servers whose name or purpose matched. */
export interface FoundServer {
  server: string;
  /** Its one-line purpose: the configured description, else the first line of its instructions. */
  description?: string;
  /** Its tools, as many as search knows. */
  tools?: number;
  /** False: the server is not running; call_mcp_tool starts it. */
  connected: boolean;
  /**
   * Present when its tools come from an index entry past the `ttlMs` the server gave the list:
   * how old the entry is. They may have changed; the next call_mcp_tool or load_mcp reads them live.
   */
  stale?: string;
}

export interface SearchAnswer {
  query: string;
  /** Best first; each names its server, described once in `servers`. */
  tools: FoundTool[];
  servers: FoundServer[];
  /** What search could not see, and what to do about it. */
  notes: string[];
}

function coverageNotes(snapshot: SearchSnapshot, server: string | undefined): string[] {
  const only = (names: string[]) => (server === undefined ? names : names.filter((name) => name === server));
  const notIndexed = only(snapshot.notIndexed);
  const stale = snapshot.stale.filter(({ name }) => server === undefined || name === server).map(({ name, indexedAt }) => `${name} (indexed ${ageText(indexedAt)} ago)`);
  const notes: string[] = [];
  if (stale.length > 0) {
    notes.push(
      `Not searched, their definition changed since they were indexed (stale): ${listNames(stale, NAMES_SHOWN)}. ` +
        'load_mcp shows their tools now.',
    );
  }
  if (notIndexed.length > 0) {
    notes.push(
      `Not searched, not indexed yet (${notIndexed.length}): ${listNames(notIndexed, NAMES_SHOWN)}. load_mcp shows their tools.`,
    );
  }
  return notes;
}

/** The answer's text, as the model reads it: names and descriptions with no raw control character (control-characters.ts). */
function answerJson(value: unknown): string {
  return jsonWithoutControls(JSON.stringify(value));
}

const leftOutNote = (count: number) =>
  `${count} more matching tools were left out to stay within the result budget; ask for fewer, a lower detail, or narrow the query.`;

/**
 * A found tool that does not fit whole, its description shortened to its share of the room left:
 * one server's tool with a description of megabytes would otherwise push every tool after it out
 * of the answer.
 */
function shortenedToShare(tool: FoundTool, room: number, sharing: number): FoundTool {
  const { description } = tool;
  if (description === undefined) return tool;
  const share = Math.floor(room / sharing) - 1;
  return { ...tool, description: descriptionWithin(description, (shortened) => answerJson({ ...tool, description: shortened }), share) };
}

/**
 * Adds found tools, then matching servers, one by one while the answer stays within the budget
 * (tools first: they are what the model asked for); says so when tools were left out, in room
 * kept for saying it.
 */
function withinBudget(answer: SearchAnswer, found: FoundTool[], servers: FoundServer[], budget: number): SearchAnswer {
  let size = answerJson(answer).length;
  for (const [position, whole] of found.entries()) {
    const after = found.length - position - 1;
    const noteRoom = after === 0 ? 0 : leftOutNote(after).length + 3;
    let tool = whole;
    if (size + answerJson(tool).length + 1 + noteRoom > budget) tool = shortenedToShare(tool, budget - size - noteRoom, after + 1);
    const added = answerJson(tool).length + 1;
    if (size + added + noteRoom > budget) {
      answer.notes.push(leftOutNote(found.length - position));
      size += answer.notes.at(-1)!.length + 3;
      break;
    }
    answer.tools.push(tool);
    size += added;
  }
  for (const server of servers) {
    const added = answerJson(server).length + 1;
    if (size + added > budget) break;
    answer.servers.push(server);
    size += added;
  }
  return answer;
}

function foundTool(server: string, tool: Tool, detail: SearchDetail): FoundTool {
  if (detail === 'name') return { server, tool: tool.name };
  if (detail === 'summary') return { server, tool: tool.name, description: tool.description };
  return { server, tool: tool.name, description: tool.description, inputSchema: schemaWithoutDialect(tool.inputSchema), annotations: tool.annotations };
}

/**
 * The first line of what a server is for, cut to PURPOSE_CHARACTERS: its configured description,
 * else its title, else its instructions (a Markdown heading shown without its `#`).
 */
export function oneLinePurpose({ description, title, instructions }: SearchableServer): string | undefined {
  const said = [description, title, instructions].find((text) => text?.trim());
  const line = said?.trim().split('\n')[0]!.replace(/^#+\s+/, '').trim();
  if (!line) return undefined;
  return line.length > PURPOSE_CHARACTERS ? `${line.slice(0, PURPOSE_CHARACTERS - 1)}…` : line;
}

export async function search(
  searchable: SearchableTools,
  args: { query: string; server?: string; limit?: number; detail?: SearchDetail },
  budget: number,
): Promise<SearchAnswer> {
  const limit = Math.min(Math.max(args.limit ?? SEARCH_LIMIT_DEFAULT, 1), SEARCH_LIMIT_MAX);
  const detail = args.detail ?? 'summary';
  const ranked = await searchable.rank(args.query, limit, args.server);
  const snapshot = searchable.current();
  const found = ranked.tools.map(({ server, tool }) => foundTool(server, tool, detail));
  const now = Date.now();
  const serverOf = (server: SearchableServer): FoundServer => {
    const found: FoundServer = {
      server: server.name,
      description: oneLinePurpose(server),
      tools: snapshot.toolCounts.get(server.name),
      connected: snapshot.sources.get(server.name) === 'connected',
    };
    const entry = snapshot.indexed.get(server.name);
    if (entry && isPastPromisedFreshness(entry, now)) found.stale = pastTtlText(entry.indexedAt, now);
    return found;
  };
  const ofTools = [...new Set(found.map(({ server }) => server))].map((name) => snapshot.search.indexed(name)!.server);
  const matching = args.server === undefined ? snapshot.search.searchServers(args.query, SERVERS_SHOWN + ofTools.length) : [];
  const servers = [...ofTools, ...matching.filter((server) => !ofTools.includes(server)).slice(0, SERVERS_SHOWN)].map(serverOf);
  const notes = [...(ranked.note ? [ranked.note] : []), ...coverageNotes(snapshot, args.server)];
  const staleServers = servers.filter(({ stale }) => stale !== undefined).map(({ server }) => server);
  if (staleServers.length > 0) {
    notes.push(`Answered from an index past its freshness time for ${listNames(staleServers, NAMES_SHOWN)}: call_mcp_tool and load_mcp read their tools live.`);
  }
  // Other words would find nothing either: search knows no server's tools until one is loaded or indexed.
  if (snapshot.sources.size === 0) notes.unshift(NOTHING_SEARCHABLE);
  else if (found.length === 0) notes.unshift('No tool matched: try other words, or a server from "servers" with load_mcp.');
  return withinBudget({ query: args.query, tools: [], servers: [], notes }, found, servers, budget);
}

export function searchMcpToolsTool(context: LoaderToolContext): LoaderTool {
  const { searchable, resultBudget } = context;
  if (!searchable) throw new Error('search_mcp_tools needs the manifest index; createLoaderTools offers it only with one.');
  return defineLoaderTool(
    {
      name: 'search_mcp_tools',
      description: DESCRIPTION,
      inputSchema: searchMcpToolsSchema(),
      async run(args) {
        const answer = await search(searchable, args, resultBudget);
        return okResult(answerJson(answer), answer);
      },
    },
    context,
  );
}

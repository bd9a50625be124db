/**
 * search_mcp_tools: the tools of every allowed server, connected or only indexed, ranked by
 * relevance to what the model wants to do. Reads memory only: it starts no server.
 */
import { defineLoaderTool } from './define-tool.js';
import { listNames } from './list-names.js';
import { okResult } from './results.js';
import { searchMcpToolsSchema } from './schemas.js';
import type { SearchableTools, SearchSnapshot } from './searchable-tools.js';
import type { LoaderToolContext } from './tool-context.js';
import type { LoaderTool } from './types.js';

const DESCRIPTION =
  'Finds tools of all MCP servers, running or not, by what they do; returns the best with input schemas. ' +
  'Use it first when unsure which server has a tool, then call_mcp_tool.';

/** Tools in one answer unless the model asks for another number, which is kept within 1 to the maximum. */
const SEARCH_LIMIT_DEFAULT = 5;
const SEARCH_LIMIT_MAX = 20;
/** Servers listed by name in one answer; the rest are counted. */
const NAMES_SHOWN = 20;
const SERVERS_SHOWN = 5;

export interface FoundTool {
  server: string;
  tool: string;
  description?: string;
  inputSchema: unknown;
  annotations?: unknown;
  /** False: the server is not running; call_mcp_tool starts it. */
  connected: boolean;
}

export interface SearchAnswer {
  query: string;
  tools: FoundTool[];
  servers: Array<{ server: string; description?: string; tools?: number }>;
  /** What search could not see, and what to do about it. */
  notes: string[];
}

function coverageNotes(snapshot: SearchSnapshot, server: string | undefined): string[] {
  const only = (names: string[]) => (server === undefined ? names : names.filter((name) => name === server));
  const notIndexed = only(snapshot.notIndexed);
  const stale = only(snapshot.stale);
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

/**
 * Adds found tools, then matching servers, one by one while the answer stays within the budget
 * (tools first: they are what the model asked for); says so when tools were left out.
 */
function withinBudget(answer: SearchAnswer, found: FoundTool[], servers: SearchAnswer['servers'], budget: number): SearchAnswer {
  let size = JSON.stringify(answer).length;
  for (const [position, tool] of found.entries()) {
    const added = JSON.stringify(tool).length + 1;
    if (size + added > budget) {
      answer.notes.push(`${found.length - position} more matching tools were left out to stay within the result budget; ask for fewer or narrow the query.`);
      size += answer.notes.at(-1)!.length + 3;
      break;
    }
    answer.tools.push(tool);
    size += added;
  }
  for (const server of servers) {
    const added = JSON.stringify(server).length + 1;
    if (size + added > budget) break;
    answer.servers.push(server);
    size += added;
  }
  return answer;
}

export async function search(
  searchable: SearchableTools,
  args: { query: string; server?: string; limit?: number },
  budget: number,
): Promise<SearchAnswer> {
  const limit = Math.min(Math.max(args.limit ?? SEARCH_LIMIT_DEFAULT, 1), SEARCH_LIMIT_MAX);
  const ranked = await searchable.rank(args.query, limit, args.server);
  const snapshot = searchable.current();
  const found = ranked.tools.map(({ server, tool }) => ({
    server,
    tool: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
    connected: snapshot.sources.get(server) === 'connected',
  }));
  const servers =
    args.server === undefined
      ? snapshot.search.searchServers(args.query, SERVERS_SHOWN).map(({ name, description }) => ({
          server: name,
          description,
          tools: snapshot.toolCounts.get(name),
        }))
      : [];
  const notes = [...(ranked.note ? [ranked.note] : []), ...coverageNotes(snapshot, args.server)];
  if (found.length === 0) notes.unshift('No tool matched: try other words, or a server from "servers" with load_mcp.');
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
        return okResult(JSON.stringify(answer), answer);
      },
    },
    context,
  );
}

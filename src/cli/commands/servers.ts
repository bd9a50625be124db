import type { DiscoveredServer, DiscoveryResult } from '../../config/index.js';
import { formatProblem } from '../../config/index.js';
import type { ManifestIndex } from '../../manifest-index/index.js';

/** `yes` with its tool count, `stale` (indexed for an earlier definition) or `no`. */
function indexState(server: DiscoveredServer, index: ManifestIndex | undefined): { indexed: 'yes' | 'stale' | 'no'; tools?: number } {
  const lookup = index?.lookup(server.name, server.config);
  if (lookup?.status === 'fresh') return { indexed: 'yes', tools: lookup.entry.manifest.tools.length };
  return { indexed: lookup?.status === 'stale' ? 'stale' : 'no' };
}

/**
 * The discovered servers. Shows where each came from and how it connects, never its env,
 * headers, args or URL: those may hold secrets.
 */
export function serversReport(result: DiscoveryResult, index?: ManifestIndex) {
  return {
    servers: Object.values(result.servers).map((server) => ({
      name: server.name,
      scope: server.scope,
      transport: server.transport,
      disabled: server.disabled,
      ...indexState(server, index),
      description: server.description ?? '',
      source: server.source,
    })),
    problems: result.problems,
  };
}

function indexedCell(server: { indexed: string; tools?: number }): string {
  return server.indexed === 'yes' ? `${server.tools} tools` : server.indexed;
}

export function formatServersTable(result: DiscoveryResult, index?: ManifestIndex): string {
  const { servers, problems } = serversReport(result, index);
  const lines: string[] = [];
  if (servers.length === 0) {
    lines.push('No MCP servers found. Add some to ~/.ai-zen/mcp.json or .mcp.json, or pass --config <file>.');
  } else {
    const rows = [
      ['NAME', 'SCOPE', 'TRANSPORT', 'STATUS', 'INDEXED', 'DESCRIPTION'],
      ...servers.map((server) => [
        server.name,
        server.scope,
        server.transport,
        server.disabled ? 'disabled' : 'enabled',
        indexedCell(server),
        server.description,
      ]),
    ];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) lines.push(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
  }
  if (problems.length > 0) {
    lines.push('', `Problems (${problems.length}):`);
    for (const problem of problems) lines.push(`  ${formatProblem(problem)}`);
  }
  return lines.join('\n');
}

import type { DiscoveryResult } from '../../config/index.js';
import { formatProblem } from '../../config/index.js';

/**
 * The discovered servers. Shows where each came from and how it connects, never its env,
 * headers, args or URL: those may hold secrets.
 */
export function serversReport(result: DiscoveryResult) {
  return {
    servers: Object.values(result.servers).map((server) => ({
      name: server.name,
      scope: server.scope,
      transport: server.transport,
      disabled: server.disabled,
      description: server.description ?? '',
      source: server.source,
    })),
    problems: result.problems,
  };
}

export function formatServersTable(result: DiscoveryResult): string {
  const { servers, problems } = serversReport(result);
  const lines: string[] = [];
  if (servers.length === 0) {
    lines.push('No MCP servers found. Add some to ~/.ai-zen/mcp.json or .mcp.json, or pass --config <file>.');
  } else {
    const rows = [
      ['NAME', 'SCOPE', 'TRANSPORT', 'STATUS', 'DESCRIPTION'],
      ...servers.map((server) => [server.name, server.scope, server.transport, server.disabled ? 'disabled' : 'enabled', server.description]),
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

/** How problems read as one line, and how they reach the logger. */
import { terminalLine } from '../../machines/control-characters.js';
import type { Logger } from '../logger.js';
import type { ConfigProblem } from './types.js';

/**
 * `/path/mcp.json:3:5: message` — the shape editors and terminals turn into links.
 *
 * @example
 * ```ts
 * import { discoverMcpServers } from 'mcp-statechart';
 * import { formatProblem } from 'mcp-statechart/config';
 *
 * const { problems } = await discoverMcpServers();
 * for (const problem of problems) console.warn(formatProblem(problem));
 * ```
 */
export function formatProblem(problem: ConfigProblem): string {
  const position = problem.line !== undefined ? `:${problem.line}:${problem.column ?? 1}` : '';
  // The path as a terminal may show it, as the message's names are: a folder's name can hold an escape sequence.
  return `${terminalLine(problem.file)}${position}: ${problem.message}`;
}

/** Every problem goes out as a warning: discovery itself never fails, it only skips. */
export function reportProblems(problems: readonly ConfigProblem[], logger: Logger): void {
  for (const problem of problems) {
    // Only the problem's own fields: messages are written to hold names, never values.
    const details: Record<string, unknown> = { severity: problem.severity, file: problem.file };
    if (problem.server !== undefined) details.server = problem.server;
    if (problem.field !== undefined) details.field = problem.field;
    logger.warn(formatProblem(problem), details);
  }
}

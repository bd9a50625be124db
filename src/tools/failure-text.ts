/** Errors from the manager, turned into text that tells the model what happened and what it can do. */
import { McpServerError } from '../../machines/errors.js';
import type { PublicServerState } from '../../machines/types.js';
import { errorMessage } from '../../machines/to-error.js';
import { isExitedAtStart } from '../errors/exited-at-start.js';

export function loadFirstText(server: string, state: PublicServerState): string {
  return `MCP server "${server}" is not connected (state: ${state}). Call load_mcp with server "${server}" first, then try again.`;
}

/** The stderr tail unless the message already carries it (connect failures do). */
function stderrSection(error: unknown): string {
  const tail = error instanceof McpServerError ? error.stderrTail?.trim() : undefined;
  if (!tail || errorMessage(error).includes(tail)) return '';
  return `\nLast stderr lines of the server:\n${tail}`;
}

function nextStepAfterLoadFailure(error: unknown): string {
  const code = error instanceof McpServerError ? error.code : undefined;
  if (error instanceof McpServerError && isExitedAtStart(error.cause)) {
    return "the server's command fails at start, so calling load_mcp again will not help: tell the user which server failed and why, so they can fix its command or config.";
  }
  if (code === 'CONFIG_ERROR') {
    return 'its config entry cannot work as written, so retrying will not help: tell the user which server failed and why, so they can fix the entry.';
  }
  return 'the server may be down or slow to start: call load_mcp again later, do without it, or tell the user what failed.';
}

export function loadFailureText(server: string, state: PublicServerState, error: unknown): string {
  return (
    `Could not load MCP server "${server}" (state: ${state}).\nError: ${errorMessage(error)}${stderrSection(error)}\n` +
    `What you can do: ${nextStepAfterLoadFailure(error)}`
  );
}

/** For a tool call or a resource read that the manager rejected. */
export function requestFailureText(server: string, state: PublicServerState, error: unknown): string {
  if (!(error instanceof McpServerError)) return errorMessage(error);
  switch (error.code) {
    case 'NOT_CONNECTED':
      return loadFirstText(server, state);
    case 'CONNECTION_LOST':
    case 'DISCONNECTED':
      return (
        `${error.message}${stderrSection(error)}\nThe request may or may not have taken effect. Call load_mcp with server ` +
        `"${server}" to reconnect before trying again.`
      );
    default:
      return error.message;
  }
}

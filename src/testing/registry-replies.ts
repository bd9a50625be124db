/**
 * The answers a chart that talks to the registry can receive, as events for an `xstate/graph`
 * model of that chart: every reply kind for every request id it uses.
 */
import { quoted } from '../../machines/control-characters.js';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { McpServerError, type McpErrorCode } from '../../machines/errors.js';
import type { McpFinalReply, McpServerManifest } from '../../machines/types.js';

export interface RegistryRepliesOptions {
  /** The server the replies come from. */
  server: string;
  /** The `requestId`s the chart sends; each gets every reply below. */
  requestIds: string[];
  /** Manifests `mcp.loaded` may carry (give one per case the chart's guards tell apart). Default: one with no tools. */
  manifests?: McpServerManifest[];
  /** Results `mcp.toolResult` may carry. Default: one empty result. */
  toolResults?: CallToolResult[];
  /** Contents `mcp.resource` may carry. Default: one text content. */
  resourceContents?: Array<ReadResourceResult['contents']>;
  /** Prompts `mcp.prompt` may carry. Default: one with no messages. */
  prompts?: GetPromptResult[];
  /**
   * The URIs `mcp.resourceSubscribed` and `mcp.resourceUnsubscribed` may name (the registry
   * names the request's `uri`: give the chart's own and another if its guards check it).
   * Default: one.
   */
  subscriptionUris?: string[];
  /**
   * Error codes `mcp.failed` may carry. Default: `CONNECTION_LOST`. The registry refuses with
   * `NOT_CONNECTED` a server not connected, with `REQUEST_FAILED` a subscription to a server
   * without the `resources.subscribe` capability, with `UNKNOWN_SERVER` / `SERVER_DISABLED` a
   * server not configured or disabled, with `INVALID_ARGUMENTS` a request with a value of the
   * wrong type (a server name that is not a non-empty string, a tool name or URI that is not a string).
   */
  errorCodes?: McpErrorCode[];
}

const EMPTY_MANIFEST: McpServerManifest = { tools: [], resources: [], resourceTemplates: [], prompts: [] };

/**
 * `mcp.loaded`, `mcp.toolResult`, `mcp.resource`, `mcp.prompt`, `mcp.resourceSubscribed`,
 * `mcp.resourceUnsubscribed` and `mcp.failed` for every request id and variant given.
 *
 * @example
 * ```ts
 * import { createChartTestModel, registryReplies } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * // Every final reply the registry can send for these requests, as events a model of your chart takes.
 * const replies = registryReplies({ server: 'notes', requestIds: ['load', 'call'] });
 * console.log(replies.map((reply) => reply.type), createChartTestModel, serverMachine);
 * ```
 */
export function registryReplies(options: RegistryRepliesOptions): McpFinalReply[] {
  const { server } = options;
  const uris = options.subscriptionUris ?? ['scripted://resource'];
  return options.requestIds.flatMap((requestId): McpFinalReply[] => [
    ...(options.manifests ?? [EMPTY_MANIFEST]).map((manifest) => ({ type: 'mcp.loaded' as const, requestId, server, manifest })),
    ...(options.toolResults ?? [{ content: [] }]).map((result) => ({ type: 'mcp.toolResult' as const, requestId, server, result })),
    ...(options.resourceContents ?? [[{ uri: 'scripted://resource', text: '' }]]).map((contents) => ({
      type: 'mcp.resource' as const,
      requestId,
      server,
      contents,
    })),
    ...(options.prompts ?? [{ messages: [] }]).map((prompt) => ({ type: 'mcp.prompt' as const, requestId, server, prompt })),
    ...uris.map((uri) => ({ type: 'mcp.resourceSubscribed' as const, requestId, server, uri })),
    ...uris.map((uri) => ({ type: 'mcp.resourceUnsubscribed' as const, requestId, server, uri })),
    ...(options.errorCodes ?? ['CONNECTION_LOST' as const]).map((code) => ({
      type: 'mcp.failed' as const,
      requestId,
      server,
      error: new McpServerError(code, server, `MCP server ${quoted(server)}: ${code} (scripted).`),
    })),
  ]);
}

/** call_mcp_tool: run one tool of a loaded server and give the model its result as text. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { defineLoaderTool } from './define-tool.js';
import { quoted } from './model-text.js';
import { toolResultParts } from './describe-content.js';
import { outputSchemaMismatch, outputSchemaToCheck } from './output-schema-check.js';
import { notSentResult, okResult, partsResult } from './results.js';
import { callMcpToolSchema, usualCallMcpToolInput, type CallMcpToolInput } from './schemas.js';
import { connectIfIndexed, requestFailureResult, type LoaderToolContext } from './tool-context.js';
import type { LoaderTool, LoaderToolCallOptions, LoaderToolResult } from './types.js';
import { LISTED_SINCE_LAST_CALL, unknownToolText } from './unknown-tool.js';
import { changedSinceOffered } from './unoffered-tool.js';

function describeCallMcpTool(searchOffered: boolean): string {
  return searchOffered
    ? 'Calls a tool load_mcp or search_mcp_tools showed, with arguments per its inputSchema.'
    : 'Calls a tool load_mcp showed, with arguments per its inputSchema.';
}

/** Whether or not the server has such a tool: a denied name gets the same answer either way. */
function deniedToolText(server: string, tool: string): string {
  return `Tool ${quoted(tool)} of MCP server ${quoted(server)} is not allowed for this agent; do not try it again. Tell the user if the task needs it.`;
}

/**
 * Each listed manifest's tools by name, made on the first call after a listing (a new listing
 * is a new array, so the entry goes with the old one): call_mcp_tool looks its tool up on every
 * call, and a server may list hundreds.
 */
const toolsByName = new WeakMap<readonly Tool[], Map<string, Tool>>();

function toolNamed(tools: readonly Tool[], name: string): Tool | undefined {
  let byName = toolsByName.get(tools);
  if (byName === undefined) {
    byName = new Map();
    // The first of two tools with one name, as a search of the list finds.
    for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
    toolsByName.set(tools, byName);
  }
  return byName.get(name);
}

type CallOptions = Parameters<LoaderToolContext['manager']['callTool']>[3];

/** What the manager is given when the caller set no options (the usual call): one shared object, not a new one per call. */
const NO_CALL_OPTIONS: CallOptions = Object.freeze({});

/** Only what a loader caller may set reaches the manager. */
function callOptions(options: LoaderToolCallOptions): CallOptions {
  const { signal, onProgress, timeoutMs, timeoutSource, resetTimeoutOnProgress, maxTotalTimeoutMs, maxTotalTimeoutSource } = options;
  return signal === undefined && onProgress === undefined && timeoutMs === undefined && resetTimeoutOnProgress === undefined && maxTotalTimeoutMs === undefined
    ? NO_CALL_OPTIONS
    : { signal, onProgress, timeoutMs, timeoutSource, resetTimeoutOnProgress, maxTotalTimeoutMs, maxTotalTimeoutSource };
}

/**
 * The tool's answer as result parts; structured content goes along as `data` unless the call
 * failed or it does not match the tool's output schema (then a note says so, and no `data`).
 * Without a schema to check it is answered at once: no promise on the path of most calls.
 */
function callResult(result: CallToolResult, server: string, tool: Tool | undefined): LoaderToolResult | Promise<LoaderToolResult> {
  const parts = toolResultParts(result, server);
  const schema = outputSchemaToCheck(tool, result);
  if (schema === undefined) return partsResult(parts, result.isError === true, result.isError ? undefined : result.structuredContent);
  return outputSchemaMismatch(schema, result).then((mismatch) => {
    if (mismatch === undefined) return partsResult(parts, false, result.structuredContent);
    parts.push({ type: 'text', text: `[The result does not match the tool's output schema (${mismatch}): its structured content is not given as data.]` });
    return partsResult(parts, false);
  });
}

export function callMcpToolTool(context: LoaderToolContext): LoaderTool {
  const { manager, catalog, approver } = context;
  const knownTool = (server: string, tool: string) => {
    const tools = manager.getManifest(server)?.tools;
    return tools && toolNamed(tools, tool);
  };

  const call = ({ server, tool, arguments: args }: CallMcpToolInput, options: LoaderToolCallOptions): Promise<LoaderToolResult> => {
    return manager.callTool(server, tool, args, callOptions(options)).then(
      (result) => callResult(result, server, knownTool(server, tool)),
      (error: unknown) => {
        if (options.signal?.aborted) throw error;
        return requestFailureResult(context, server, error);
      },
    );
  };

  /** Connects an indexed server first, answers an unknown tool or one changed since a direct tool offered it, asks for approval: then calls. */
  const prepareAndCall = async (input: CallMcpToolInput, options: LoaderToolCallOptions): Promise<LoaderToolResult> => {
    const { server, tool } = input;
    if (manager.getState(server) !== 'connected') {
      const notReady = await connectIfIndexed(context, server, tool, options.signal);
      if (notReady) return notReady;
    }
    // A tool the server added a moment ago may not be announced yet: its list is read once before
    // the tool is refused (unless read for a name it lacked since the last call, tools-reread.ts), and
    // the approver decides with the fresh annotations.
    if (!knownTool(server, tool)) await manager.rereadTools(server);
    const known = knownTool(server, tool);
    if (!known) {
      const allowed = (manager.getManifest(server)?.tools ?? []).filter((other) => catalog.allowsTool(server, other.name));
      return notSentResult(unknownToolText(catalog, server, tool, allowed, LISTED_SINCE_LAST_CALL), 'unknown_tool');
    }
    const changed = changedSinceOffered(options, known);
    if (changed !== undefined) return notSentResult(changed, 'tool_changed');
    const refusal = await approver.refusal(
      { server, tool, arguments: input.arguments ?? {}, annotations: known.annotations, inputSchema: known.inputSchema },
      known,
      options.signal,
    );
    if (refusal !== undefined) return { ...okResult(refusal), refused: true };
    return call(input, options);
  };

  return defineLoaderTool(
    {
      name: 'call_mcp_tool',
      description: describeCallMcpTool(context.searchOffered),
      inputSchema: callMcpToolSchema(),
      usualInput: usualCallMcpToolInput,
      run(input, options) {
        const { server, tool } = input;
        // Before connecting: a denied tool must not start its server.
        if (!catalog.allowsTool(server, tool)) return Promise.resolve(notSentResult(deniedToolText(server, tool), 'policy'));
        // The usual call (a connected server, a known tool, a policy that does not ask or an "allow always") is one promise chain.
        const known = manager.getState(server) === 'connected' ? knownTool(server, tool) : undefined;
        if (known && !approver.asks(server, known) && changedSinceOffered(options, known) === undefined) return call(input, options);
        return prepareAndCall(input, options);
      },
    },
    context,
  );
}

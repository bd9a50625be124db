/**
 * What the model is offered: the loader tools (lazy), or the servers' own tools directly
 * (eager), chosen once when the tools are made, on what each costs the model's context.
 */
import { inspect } from 'node:util';
import type { Tool } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { toFunctionDefinitions } from './adapters.js';
import { descriptionWithin, schemaWithoutDialect } from './manifest-summary.js';
import { schemaTextEscaped } from './schema-text.js';
import { terminalText } from '../../machines/control-characters.js';
import { quoted } from './model-text.js';
import { MAX_DIRECT_DESCRIPTION_CHARACTERS, MAX_DIRECT_SCHEMA_TEXT_CHARACTERS } from '../text-limits.js';
import type { LoaderToolContext } from './tool-context.js';
import { callAsOffered, type OfferedDefinition, type ToolPart, type UnofferedText } from './unoffered-tool.js';
import type { ExposureDecision, ExposureOption, LoaderTool, LoaderToolParameters, LoaderToolResult } from './types.js';
import { notSentResult } from './results.js';

/** Function-calling APIs take names of at most 64 characters from this set (OpenAI's and Anthropic's rule). */
const NAME_LENGTH = 64;
const NOT_IN_NAMES = /[^A-Za-z0-9_-]/g;
const SEPARATOR = '__';

/** Estimated tokens of a definition text: a quarter of its bytes. */
export const tokensOf = (bytes: number): number => Math.ceil(bytes / 4);

export const definitionBytes = (tools: readonly LoaderTool[]): number => Buffer.byteLength(JSON.stringify(toFunctionDefinitions(tools)));

/**
 * `server__tool` in the characters function names allow, unique among `taken`: a name that
 * two tools would share (servers `a.b` and `a_b`, or `a` with tool `b__c` and `a__b` with `c`)
 * gets `_2`, `_3`… on the later one, so no tool hides another.
 */
export function directToolName(server: string, tool: string, taken: Set<string>): string {
  const base = `${server}${SEPARATOR}${tool}`.replace(NOT_IN_NAMES, '_').slice(0, NAME_LENGTH);
  let name = base;
  for (let suffix = 2; taken.has(name); suffix++) name = `${base.slice(0, NAME_LENGTH - String(suffix).length - 1)}_${suffix}`;
  taken.add(name);
  return name;
}

/**
 * A server's own input schema as a function definition's parameters (`$schema` dropped, `properties`
 * and `required` present), its descriptions and titles escaped and cut as the tool's own, and all
 * of them together within MAX_DIRECT_SCHEMA_TEXT_CHARACTERS: they reach the model's context too.
 */
function directParameters(schema: Tool['inputSchema']): LoaderToolParameters {
  let left = MAX_DIRECT_SCHEMA_TEXT_CHARACTERS;
  const within = (text: string) => {
    const shown = directDescription(text, Math.min(MAX_DIRECT_DESCRIPTION_CHARACTERS, left));
    left = Math.max(0, left - shown.length);
    return shown;
  };
  const rest = schemaTextEscaped(schemaWithoutDialect(schema), within);
  return { ...rest, type: 'object', properties: (rest.properties as Record<string, unknown> | undefined) ?? {}, required: (rest.required as string[] | undefined) ?? [] };
}

/** The server checks the arguments against its own schema; only their being an object is checked here. */
const DIRECT_ARGUMENTS = z.looseObject({});

/**
 * A server's description as the loader's answers give it: escaped (no escape sequence or bidi
 * override reaches the model's context), and cut with a note saying so past MAX_DIRECT_DESCRIPTION_CHARACTERS.
 */
const directDescription = (description: string, budget = MAX_DIRECT_DESCRIPTION_CHARACTERS): string =>
  terminalText(descriptionWithin(description, terminalText, budget));

/**
 * One server tool offered as itself. A call goes through call_mcp_tool (permissions, approval,
 * connecting an indexed server, the result budget), so both exposures behave the same.
 */
function directTool(server: string, tool: Tool, name: string, call: LoaderTool, reachAsNow: ReachAsNow): LoaderTool {
  const offered: OfferedDefinition = {
    definition: tool,
    changed: (parts) =>
      `Tool ${quoted(name)} was not called: MCP server ${quoted(server)} changed ${quoted(tool.name)} after this session's tools were made (what changed: its ${listed(parts)}), and the tools offered stay the same for the session. ${reachAsNow(server, tool.name)}`,
  };
  const origin = `Tool ${quoted(tool.name)} of MCP server ${quoted(server)}`;
  const own = tool.description ?? tool.title;
  // A name the function-name rules changed (天気__天気予報 offered as ________) or suffixed tells
  // the model neither tool nor server: the description does, or two servers' copies read the same.
  const renamed = name !== `${server}${SEPARATOR}${tool.name}`;
  return {
    name,
    description: directDescription(own === undefined ? origin : renamed ? `${origin}. ${own}` : own),
    inputSchema: DIRECT_ARGUMENTS,
    parameters: directParameters(tool.inputSchema),
    execute: async (args, options) => {
      const result = await call.execute({ server, tool: tool.name, arguments: args ?? {} }, callAsOffered(options, offered));
      return result.notSent === 'unknown_tool' ? removedSince(name, result) : result;
    },
  };
}

/** `arguments`, `arguments and description`, `arguments, description and annotations`. */
function listed(parts: readonly ToolPart[]): string {
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
}

const OFFERED_WHEN_MADE_AGAIN = 'once these tools are made again: for mcp-statechart serve, when the host restarts it. Tell the user if it is needed now.';

/** How the model reaches a server's tool as it is now, with what the session offers beside the direct tools. */
type ReachAsNow = (server: string, tool: string) => string;

function reachWith(offered: readonly LoaderTool[]): ReachAsNow {
  const has = (name: string) => offered.some((candidate) => candidate.name === name);
  return (server, tool) => {
    if (!has('call_mcp_tool')) return `It is offered as it is now ${OFFERED_WHEN_MADE_AGAIN}`;
    const call = `call_mcp_tool (server ${quoted(server)}, tool ${quoted(tool)})`;
    return has('load_mcp') ? `Read it as it is now with load_mcp (server ${quoted(server)}), then call it with ${call}.` : `Call it as it is now with ${call}.`;
  };
}

/** A direct tool is offered because its server listed it: refused as unknown now, the server removed it since. */
function removedSince(name: string, refused: LoaderToolResult): LoaderToolResult {
  return notSentResult(
    `Tool ${quoted(name)} was listed when this session's tools were made, but its server has removed it since; the tools offered stay the same for the session. ${refused.text}`,
    'unknown_tool',
  );
}

/** Each allowed server's tools as search or the live connection knows them; undefined for a server not known. */
function knownTools(context: LoaderToolContext, server: string): Tool[] | undefined {
  const { manager, catalog, searchable } = context;
  if (searchable) return searchable.toolsOf(server);
  const live = manager.getState(server) === 'connected' ? manager.getManifest(server)?.tools : undefined;
  return live?.filter((tool) => catalog.allowsTool(server, tool.name));
}

/**
 * The application's `exposure`, checked before anything is configured: a misspelt mode or a
 * threshold that is not a number would otherwise go lazy for a reason that reads "exceed
 * undefined tokens".
 */
export function checkedExposure(option: unknown): ExposureOption | undefined {
  if (option === undefined || option === 'lazy' || option === 'eager') return option;
  const threshold = typeof option === 'object' && option !== null ? (option as { thresholdTokens?: unknown }).thresholdTokens : undefined;
  if (typeof threshold === 'number' && Number.isFinite(threshold) && threshold >= 0) return { thresholdTokens: threshold };
  throw new TypeError(`exposure must be "lazy", "eager" or { thresholdTokens: a number ≥ 0 }, not ${inspect(option, { depth: 1, breakLength: Infinity })}`);
}

export interface Exposure {
  tools: LoaderTool[];
  decision: ExposureDecision;
  /** Eager: what a name not offered means now (see unoffered-tool.ts). */
  unoffered?: UnofferedText;
}

/**
 * Eager: a name not offered that is a server's tool now, as a rebuild would name it, was added
 * after the tools were made, or was not known then (its server neither connected nor indexed).
 * call_mcp_tool reaches it when offered; else only new tools do.
 */
function addedSince(context: LoaderToolContext, loaderTools: readonly LoaderTool[], offered: readonly LoaderTool[], unknownServers: readonly string[]): UnofferedText {
  return (name) => {
    const taken = new Set<string>(loaderTools.map((tool) => tool.name));
    for (const { name: server } of context.catalog.available) {
      const tool = knownTools(context, server)?.find((known) => directToolName(server, known.name, taken) === name);
      if (!tool) continue;
      const reach = offered.some((candidate) => candidate.name === 'call_mcp_tool')
        ? `Call it with call_mcp_tool (server ${quoted(server)}, tool ${quoted(tool.name)}).`
        : `It is offered ${OFFERED_WHEN_MADE_AGAIN}`;
      // A server whose tools were not known then may have had this tool all along: "added since" would be a guess.
      if (unknownServers.includes(server)) {
        return `Tool ${quoted(name)} is not offered: MCP server ${quoted(server)} was neither connected nor indexed when this session's tools were made, so its tool ${quoted(tool.name)} was not known then, and the tools stay the same for the session. ${reach}`;
      }
      return `Tool ${quoted(name)} is not offered: MCP server ${quoted(server)} added ${quoted(tool.name)} after this session's tools were made, and they stay the same for the session. ${reach}`;
    }
    return undefined;
  };
}

/**
 * The tools to offer and why. `loaderTools` are those the permissions allow; `call` is
 * call_mcp_tool, which direct tools go through (denied, it cuts every call: then lazy).
 */
export function chooseExposure(
  option: ExposureOption | undefined,
  context: LoaderToolContext,
  loaderTools: LoaderTool[],
  call: LoaderTool | undefined,
): Exposure {
  const taken = new Set<string>(loaderTools.map((tool) => tool.name));
  const direct: LoaderTool[] = [];
  const unknownServers: string[] = [];
  // What reaches a tool its server redefines depends on the tools offered beside, chosen below.
  let reachAsNow: ReachAsNow = reachWith([]);
  const reach: ReachAsNow = (server, tool) => reachAsNow(server, tool);
  for (const { name: server } of context.catalog.available) {
    const tools = knownTools(context, server);
    if (!tools) unknownServers.push(server);
    else if (call) for (const tool of tools) direct.push(directTool(server, tool, directToolName(server, tool.name, taken), call, reach));
  }
  // read_mcp_resource stays beside the direct tools: any tool result may link a resource ("read it
  // with read_mcp_resource", links need not be listed), and without it the model had no way to follow one.
  const withRead = direct.concat(loaderTools.filter((tool) => tool.name === 'read_mcp_resource'));
  const directBytes = definitionBytes(direct);
  const measured = { loaderBytes: definitionBytes(loaderTools), directBytes, directTokens: tokensOf(directBytes), unknownServers };
  const threshold = typeof option === 'object' ? option.thresholdTokens : undefined;
  const lazy = (reason: string): Exposure => ({ tools: loaderTools, decision: { mode: 'lazy', reason, ...measured, thresholdTokens: threshold } });
  const eager = (reason: string, tools: LoaderTool[]): Exposure => {
    reachAsNow = reachWith(tools);
    return { tools, decision: { mode: 'eager', reason, ...measured, thresholdTokens: threshold }, unoffered: addedSince(context, loaderTools, tools, unknownServers) };
  };

  if (option === undefined) return lazy('lazy by default');
  if (option === 'lazy') return lazy('lazy exposure asked for');
  if (!call) return lazy('call_mcp_tool is not allowed, and direct tools are calls');
  if (option === 'eager') {
    if (unknownServers.length === 0) return eager('eager exposure asked for', withRead);
    // The loader tools stay beside the direct ones: without them the servers not known yet could not be reached.
    return eager(`eager exposure asked for; the loader tools stay for ${unknownServers.length} servers whose tools are not known`, [...direct, ...loaderTools]);
  }
  if (unknownServers.length > 0) return lazy(`${unknownServers.length} servers' tools are not known (not indexed): eager could not list them`);
  if (measured.directTokens <= option.thresholdTokens) return eager(`the servers' tools (~${measured.directTokens} tokens) fit within ${option.thresholdTokens} tokens`, withRead);
  return lazy(`the servers' tools (~${measured.directTokens} tokens) exceed ${option.thresholdTokens} tokens`);
}

/** load_mcp: connect a server (or keep a connected one alive) and show the model what it offers. */
import type { Tool } from '@modelcontextprotocol/client';
import type { McpServerManifest } from '../../machines/types.js';
import { terminalLine } from '../../machines/control-characters.js';
import { listNames } from './list-names.js';
import { quoted } from './model-text.js';
import { defineLoaderTool } from './define-tool.js';
import { loadFailureText } from './failure-text.js';
import { descriptionWithin, manifestJson, summarizeManifest, toolSummary } from './manifest-summary.js';
import { errorResult, okResult } from './results.js';
import { loadMcpSchema } from './schemas.js';
import type { LoaderToolContext } from './tool-context.js';
import type { ServerCatalog } from './server-catalog.js';
import type { LoaderTool, LoaderToolResult, LoaderToolsManager } from './types.js';
import { unknownToolText } from './unknown-tool.js';
import { untilAborted } from './until-aborted.js';

const PURPOSE = 'Connects an MCP server; returns its tools with input schemas, resources and prompts.';
const SWITCHING_OFF = 'enabled: false disconnects it and hides it from the other tools for this session.';
const SHARED = 'The servers are shared by every caller of this gateway: enabled: false is refused.';

/**
 * One line per server, with its tool count when search knows it. Names and descriptions come
 * from config files: one with a line break would add a server of its own making to the list.
 */
function serverLines({ catalog, searchable }: LoaderToolContext): string {
  if (catalog.available.length === 0) return 'No MCP server is available.';
  const lines = catalog.available.map(({ name, description }) => {
    const count = searchable?.toolsOf(name)?.length;
    const label = count === undefined ? terminalLine(name) : `${terminalLine(name)} (${count} tools)`;
    return description ? `- ${label}: ${terminalLine(description)}` : `- ${label}`;
  });
  return `Servers:\n${lines.join('\n')}`;
}

/** Names of servers waiting for approval shown in the definition; the rest are counted. */
const AWAITING_NAMES_SHOWN = 10;

/**
 * Servers the user must approve first: the model cannot load them, but can ask for them. Set by
 * the config, as the list is, so the definition stays the same until the config changes.
 */
function awaitingLine({ catalog }: LoaderToolContext): string {
  if (catalog.awaitingApproval.length === 0) return '';
  return `\nThese servers need the user's approval before use (load_mcp refuses them until then; ask the user to approve one you need): ${listNames(catalog.awaitingApproval, AWAITING_NAMES_SHOWN)}.`;
}

/**
 * What it does and the servers to choose from; nothing about the order of work, which each
 * other definition says once: call_mcp_tool and read_mcp_resource name where their tools and
 * URIs come from, search_mcp_tools says to search first when unsure.
 */
function describeLoadMcp(context: LoaderToolContext): string {
  const { catalog, searchOffered, surface } = context;
  const purpose = `${PURPOSE} ${surface === 'gateway' ? SHARED : SWITCHING_OFF}`;
  const notice = `${awaitingLine(context)}${catalog.notice === '' ? '' : `\n${catalog.notice}`}`;
  if (catalog.listed) return `${purpose} ${serverLines(context)}${notice}`;
  const finding = searchOffered ? 'search_mcp_tools finds them' : 'ask the user which one';
  return `${purpose} ${catalog.names.length} servers are configured, too many to list: ${finding}; an unknown name gets the closest names.${notice}`;
}

/** A connected server is only touched (its idle timer re-armed); asking for a connection again would be a no-op round trip. */
async function manifestOf(manager: LoaderToolsManager, server: string): Promise<McpServerManifest> {
  const manifest = manager.getState(server) === 'connected' ? manager.getManifest(server) : undefined;
  if (!manifest) return manager.connect(server);
  manager.touch(server);
  return manifest;
}

/** One tool's full entry, for a manifest that came in its short form. A denied tool reads as unknown. */
function oneToolResult(catalog: ServerCatalog, server: string, name: string, tools: Tool[], budget: number): LoaderToolResult {
  const tool = tools.find((known) => known.name === name);
  if (!tool) return errorResult(unknownToolText(catalog, server, name, tools));
  const summary = toolSummary(tool, true);
  const render = (description: string) => manifestJson({ server, tool: { ...summary, description } });
  const text = summary.description === undefined ? manifestJson({ server, tool: summary }) : render(descriptionWithin(summary.description, render, budget));
  return okResult(text, JSON.parse(text));
}

/** The model turns a server off: it is disconnected, and no tool but load_mcp uses it until turned on again. */
async function switchOff({ manager, catalog, surface }: LoaderToolContext, server: string): Promise<LoaderToolResult> {
  // One caller's switch would disconnect calls in flight of every other caller and hide the server from them.
  if (surface === 'gateway') {
    return errorResult(`MCP server ${quoted(server)} stays on: this gateway's servers are shared by every caller, so load_mcp cannot turn one off for all of them. Leave it unused, or ask the gateway's operator to deny it in the gateway file.`);
  }
  catalog.switchOff(server, true);
  if (manager.getState(server) !== 'disconnected') await manager.disconnect(server);
  return okResult(`MCP server ${quoted(server)} is off for this session: disconnected, left out of search and refused by call_mcp_tool. load_mcp { server: ${quoted(server)} } turns it back on.`);
}

export function loadMcpTool(context: LoaderToolContext): LoaderTool {
  const { manager, catalog, resultBudget } = context;
  return defineLoaderTool(
    {
      name: 'load_mcp',
      description: describeLoadMcp(context),
      inputSchema: loadMcpSchema(catalog.names, catalog.listed),
      async run({ server, tool, enabled }, { signal }) {
        if (enabled === false) return switchOff(context, server);
        catalog.switchOff(server, false);
        let manifest: McpServerManifest;
        try {
          manifest = await untilAborted(manifestOf(manager, server), signal, server, 'loading the server');
        } catch (error) {
          if (signal?.aborted) throw error;
          return errorResult(loadFailureText(server, manager.getState(server), error, context.surface), error);
        }
        const allowed = { ...manifest, tools: manifest.tools.filter((known) => catalog.allowsTool(server, known.name)) };
        if (tool !== undefined) return oneToolResult(catalog, server, tool, allowed.tools, resultBudget);
        const { text } = summarizeManifest(server, manager.getState(server), allowed, {
          instructions: manager.getClient(server)?.getInstructions(),
          budget: resultBudget,
        });
        return okResult(text, JSON.parse(text));
      },
    },
    context,
  );
}

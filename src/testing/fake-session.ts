import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { McpServerManifest, McpSession } from '../../machines/types.js';
import { toError } from '../../machines/to-error.js';
import { McpServerError } from '../../machines/errors.js';

export const FAKE_MANIFEST: McpServerManifest = {
  tools: [{ name: 'echo', description: 'Returns its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
  resources: [{ uri: 'fake://greeting', name: 'greeting' }],
  resourceTemplates: [],
  prompts: [],
};

export const FAKE_TOOL_RESULT: CallToolResult = { content: [{ type: 'text', text: 'echo' }] };
export const FAKE_PROMPT_RESULT: GetPromptResult = { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] };
export const FAKE_RESOURCE_RESULT: ReadResourceResult = { contents: [{ uri: 'fake://greeting', text: 'hello' }] };

/**
 * A session that is only data: what a scripted `connect` resolves with when the chart is run
 * without a server. Its methods answer at once; the chart's own actors are scripted anyway.
 *
 * @example
 * ```ts
 * import { createFakeSession, FAKE_MANIFEST } from 'mcp-statechart/testing';
 *
 * const session = createFakeSession(FAKE_MANIFEST); // a session that answers from memory, for unit tests of logic
 * console.log(session.manifest.tools.length, await session.callTool('echo', { text: 'hi' }));
 * ```
 */
export function createFakeSession(manifest: McpServerManifest = FAKE_MANIFEST): McpSession {
  return {
    client: {} as Client,
    manifest,
    watch: () => () => {},
    rereadTools: async () => {},
    callTool: async () => FAKE_TOOL_RESULT,
    readResource: async () => FAKE_RESOURCE_RESULT,
    getPrompt: async () => FAKE_PROMPT_RESULT,
    subscribeResource: async () => {},
    unsubscribeResource: async () => {},
    complete: async () => ({ completion: { values: [] } }),
    resubscribe: () => {},
    failure: (what, error) => new McpServerError('REQUEST_FAILED', 'fake', `fake session failed ${what}: ${toError(error).message}`, { cause: error }),
    stderrTail: () => '',
    close: async () => {},
  };
}

/** What the tests of the example agent against the scripted registry share: manifests, results and the agent's input. */
import type { McpServerManifest } from 'mcp-statechart';
import type { AgentInput } from '../../examples/agent-statechart.js';

export const withTools = (...tools: string[]): McpServerManifest => ({
  tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })),
  resources: [],
  resourceTemplates: [],
  prompts: [],
});

export const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** An agent whose task is `echo` on the scripted server `demo`. */
export const input: AgentInput = { servers: { demo: { command: 'not-started' } }, task: { server: 'demo', tool: 'echo', arguments: { text: 'hi' } } };

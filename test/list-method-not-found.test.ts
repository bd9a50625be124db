/**
 * A server that declares `resources` but answers resources/templates/list "method not found" (a
 * common shape: a low-level server given only resources/list) is connected with its tools and
 * resources and no templates, instead of failing the whole connect. Real process: the hostile
 * stdio fixture with --no-templates.
 */
import { afterEach, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { hostileServer, recordingLogger } from './support/hostile.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

it('connects a server that declares resources but has no resources/templates/list: its tools and resources are there, no templates', async () => {
  const { logger, lines } = recordingLogger();
  manager = new McpConnectionManager({ logger, defaults: { autoReconnect: false } });

  const manifest = await manager.connect('partial', hostileServer('--resource', 'doc://readme', '--no-templates'));

  expect(manifest.tools.map(({ name }) => name)).toContain('echo');
  expect(manifest.resources.map(({ uri }) => uri)).toEqual(['doc://readme']);
  expect(manifest.resourceTemplates).toEqual([]);
  expect(lines.debug).toContain('MCP server "partial" declares resources but has no resources/templates/list: it offers none');
  const answer = await manager.callTool('partial', 'echo', { text: 'still usable' });
  expect(answer.content).toEqual([{ type: 'text', text: 'still usable' }]);
}, 30_000);

/**
 * A server that did not declare prompts (resources) is not asked `prompts/get` (`resources/read`):
 * serve passes on what a host asks, and such a server's answer is no contract's. The error names
 * the server and says why. The hostile fixture declares neither unless told to.
 */
import { afterEach, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import { hostileServer } from './support/hostile.js';
import { rejectionOf } from './support/fixtures.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

it('refuses prompts/get and resources/read to a server that declared neither, naming it, without asking it', async () => {
  manager = new McpConnectionManager({ logger: silentLogger });
  await manager.connect('bare', hostileServer(), { maxRetries: 0 });
  const prompt = await rejectionOf(manager.getPrompt('bare', 'anything'));
  expect(prompt.message).toContain('MCP server "bare"');
  expect(prompt.message).toContain('the server does not offer prompts (its capabilities lack prompts), so it was not asked');
  const read = await rejectionOf(manager.readResource('bare', 'file:///anything'));
  expect(read.message).toContain('MCP server "bare"');
  expect(read.message).toContain('the server does not offer resources (its capabilities lack resources), so it was not asked');
  // Still connected: a refusal here is not the server failing.
  expect(manager.getState('bare')).toBe('connected');
}, 20_000);

it('still asks a server that declared them', async () => {
  manager = new McpConnectionManager({ logger: silentLogger });
  await manager.connect('declared', hostileServer('--resource', 'doc://one', '--empty-prompts'), { maxRetries: 0 });
  expect((await manager.readResource('declared', 'doc://one')).contents).toHaveLength(1);
  // It answers a malformed {}: asked, and its answer refused, not "does not offer".
  expect((await rejectionOf(manager.getPrompt('declared', 'listed'))).message).not.toContain('does not offer');
}, 20_000);

/** Model-supplied `server`, `tool`, `uri` and `query` arguments have a length limit, and an over-long one is never echoed back. */
import { afterEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTool } from '../src/index.js';
import { ARGUMENT_LENGTH_LIMITS } from '../src/tools/define-tool.js';
import { stdioFixture } from './support/fixtures.js';
import { seedManifestIndex } from './support/seeded-index.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

function tools(): Map<string, LoaderTool> {
  seedManifestIndex(); // search_mcp_tools is offered over a non-empty index only
  manager = new McpConnectionManager({ logger: silentLogger });
  const loader = createLoaderTools({
    manager,
    servers: { fixture: stdioFixture() },
    permissions: { mcps: { deny: ['prod-*-*-*-db'] } },
  });
  return new Map(loader.map((tool) => [tool.name, tool]));
}

const long = (limit: number) => 'n'.repeat(limit + 1);

describe('argument length limits', () => {
  it.each([
    ['load_mcp', { server: long(ARGUMENT_LENGTH_LIMITS.server) }, 'server'],
    ['call_mcp_tool', { server: 'fixture', tool: long(ARGUMENT_LENGTH_LIMITS.tool) }, 'tool'],
    ['read_mcp_resource', { server: 'fixture', uri: long(ARGUMENT_LENGTH_LIMITS.uri) }, 'uri'],
    ['call_mcp_tool', { server: long(ARGUMENT_LENGTH_LIMITS.server), tool: 'echo' }, 'server'],
    ['search_mcp_tools', { query: long(ARGUMENT_LENGTH_LIMITS.query) }, 'query'],
  ])('%s refuses an over-long %j without quoting it', async (name, args, field) => {
    const result = await tools().get(name)!.execute(args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`"${field}" argument`);
    expect(result.text).not.toContain('nnnnnnnnnn');
    expect(result.text.length).toBeLessThan(300);
    expect(manager!.openSessionCount()).toBe(0);
  });

  it('a name at the limit is looked up as usual', async () => {
    const result = await tools().get('load_mcp')!.execute({ server: 'n'.repeat(ARGUMENT_LENGTH_LIMITS.server) });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/Unknown MCP server/);
  });
});

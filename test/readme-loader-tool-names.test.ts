/**
 * The README's LangChain table and toAiSdkTools' @example promised four loader tools; with an
 * empty manifest index createLoaderTools gives three (search_mcp_tools joins once the index holds
 * a manifest). The docs now say so; this keeps them beside what createLoaderTools gives.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger } from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const adapters = readFileSync(new URL('../src/tools/adapters.ts', import.meta.url), 'utf8');

describe('the loader tools the docs name', () => {
  it('with an empty index are the three the README table and the toAiSdkTools example name, search joining later', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const names = createLoaderTools({ manager, servers: {} }).map((tool) => tool.name);
    await manager.dispose();
    expect(names).toEqual(['load_mcp', 'call_mcp_tool', 'read_mcp_resource']);
    const row = readme.split('\n').find((line) => line.startsWith('| `await client.getTools()`'));
    expect(row).not.toMatch(/four loader tools/);
    expect(row).toContain('`search_mcp_tools` once the manifest index holds');
    expect(adapters).toContain(`// With an empty manifest index (a fresh HOME): ${JSON.stringify(names).replaceAll('"', "'").replaceAll(',', ', ')};`);
  });
});

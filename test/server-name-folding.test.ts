/**
 * A server or tool name typed in another case, without its accents, or in another Unicode form
 * (an accent as a combining mark) is not the name: it is looked up exactly, never connected in
 * the named one's place (a look-alike must not reach a server silently), and the name it folds to
 * is offered as "did you mean", to a model and to a person alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderServers, type LoaderTool } from '../src/index.js';
import { unknownServerExplanation } from '../src/cli/failure-text.js';
import { closestNames } from '../src/search/index.js';

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

/** Configs that are never started: every name asked for here is refused before a connection. */
const serversNamed = (names: readonly string[]): LoaderServers =>
  Object.fromEntries(names.map((name) => [name, { config: { command: 'never-started', args: [name] }, description: `The ${name} server` }]));

function loadTool(names: readonly string[]) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const tools = createLoaderTools({ manager, servers: serversNamed(names) });
  return { manager, load: tools.find((tool) => tool.name === 'load_mcp') as LoaderTool };
}

const many = (count: number) => Array.from({ length: count }, (_, at) => `server-${at}`);

describe('a server name that differs only in case, accents or Unicode form', () => {
  it('load_mcp refuses it and offers the configured name, connecting nothing', async () => {
    const { load, manager } = loadTool(['café', 'tea']);
    for (const asked of ['CAFÉ', 'cafe\u0301', 'cafe']) {
      const result = await load.execute({ server: asked });
      expect(result.isError, asked).toBe(true);
      expect(result.text, asked).toContain('Did you mean café? Server names match exactly');
    }
    expect(manager.openSessionCount()).toBe(0);
  });

  it('among too many servers to list, the folded name is offered first', async () => {
    const { load, manager } = loadTool([...many(40), 'izmir']);
    const result = await load.execute({ server: 'İZMİR' });
    expect(result.text).toMatch(/^Unknown MCP server "İZMİR"\. Did you mean izmir\?/);
    expect(manager.openSessionCount()).toBe(0);
  });

  it("the CLI's unknown server says \"did you mean\" for an NFD or İ-cased name", () => {
    expect(unknownServerExplanation('cafe\u0301', ['café', 'tea']).message).toContain('did you mean "café"?');
    expect(unknownServerExplanation('İZMİR', ['izmir', 'ankara']).message).toContain('did you mean "izmir"?');
  });
});

describe('a tool name typed in another Unicode form', () => {
  it('is nearest to the tool written with the same accents, before one that lacks them', () => {
    expect(closestNames('cafe\u0301_order', ['cafe_order', 'café_order', 'tea_order'])[0]).toBe('café_order');
    expect(closestNames('CAFE_ORDER', ['café_order', 'cafe_order'])[0]).toBe('cafe_order');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderPermissions, type LoaderTool } from '../src/index.js';
import { isServerAllowed } from '../src/entries/config.js';
import { stdioFixture } from './support/fixtures.js';
import { seedManifestIndex } from './support/seeded-index.js';

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

const SERVERS = {
  fixture: { config: stdioFixture(), description: 'The test fixture server' },
  secret: { config: stdioFixture('--name', 'secret'), description: 'Holds the secrets' },
  git: stdioFixture('--name', 'git'),
  github: stdioFixture('--name', 'github'),
  gitlab: stdioFixture('--name', 'gitlab'),
};

/** The tools, then the manager they configured. */
function toolsWith(permissions: LoaderPermissions): [LoaderTool[], McpConnectionManager] {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  return [createLoaderTools({ manager, servers: SERVERS, permissions }), manager];
}

function serverEnum(tool: LoaderTool): unknown {
  return (tool.parameters.properties.server as { enum?: string[] }).enum;
}

describe('tools permissions', () => {
  beforeEach(() => {
    seedManifestIndex();
  });

  it('returns all four tools when nothing is switched off', () => {
    expect(toolsWith({})[0].map((tool) => tool.name)).toEqual(['load_mcp', 'call_mcp_tool', 'read_mcp_resource', 'search_mcp_tools']);
  });

  it('does not return a tool whose permission is false', () => {
    expect(toolsWith({ tools: { call_mcp_tool: false } })[0].map((tool) => tool.name)).toEqual([
      'load_mcp',
      'read_mcp_resource',
      'search_mcp_tools',
    ]);
    expect(
      toolsWith({ tools: { load_mcp: false, read_mcp_resource: false, search_mcp_tools: false } })[0].map((tool) => tool.name),
    ).toEqual(['call_mcp_tool']);
  });
});

describe('mcps permissions', () => {
  it('lets every server in when there is no allow list', () => {
    const [[load]] = toolsWith({});
    expect(serverEnum(load!)).toEqual(['fixture', 'secret', 'git', 'github', 'gitlab']);
  });

  it('leaves a denied server out of the enum, the description and the manager', () => {
    const [tools, manager] = toolsWith({ mcps: { deny: ['secret'] } });
    expect(serverEnum(tools[0]!)).toEqual(['fixture', 'git', 'github', 'gitlab']);
    // call_mcp_tool and read_mcp_resource take the name load_mcp was given; they refuse the rest at run time.
    for (const tool of tools.slice(1)) expect(serverEnum(tool)).toBeUndefined();
    expect(tools[0]!.description).not.toContain('secret');
    expect(manager.serverNames).not.toContain('secret');
  });

  it('refuses a denied server at run time, even in a hand-made execute call, without starting it', async () => {
    const [[load, call, read], manager] = toolsWith({ mcps: { deny: ['secret'] } });
    const answers = [
      await load!.execute({ server: 'secret' }),
      await call!.execute({ server: 'secret', tool: 'echo', arguments: { text: 'hi' } }),
      await read!.execute({ server: 'secret', uri: 'fixture://greeting' }),
    ];
    for (const answer of answers) {
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^MCP server "secret" is not allowed for this agent/);
    }
    expect(manager.getState('secret')).toBe('disconnected');

    const allowed = await load!.execute({ server: 'fixture' });
    expect(allowed.isError).toBe(false);
  });

  it('matches * wildcards in allow patterns', () => {
    const [[load], manager] = toolsWith({ mcps: { allow: ['git*'] } });
    expect(serverEnum(load!)).toEqual(['git', 'github', 'gitlab']);
    expect(manager.serverNames.sort()).toEqual(['git', 'github', 'gitlab']);
  });

  it('lets deny win over allow', async () => {
    const [[load]] = toolsWith({ mcps: { allow: ['git*', 'secret'], deny: ['gitl*', 'secret'] } });
    expect(serverEnum(load!)).toEqual(['git', 'github']);
    expect((await load!.execute({ server: 'gitlab' })).text).toContain('is not allowed');
    expect((await load!.execute({ server: 'secret' })).text).toContain('is not allowed');
  });

  it('refuses a name outside the allow list even when no server has it', async () => {
    const [[load]] = toolsWith({ mcps: { allow: ['fixture'] } });
    expect((await load!.execute({ server: 'anything' })).text).toMatch(/"anything" is not allowed.*Servers you can use: fixture\./);
  });

  it('treats only * as special in a pattern', () => {
    const permissions = { mcps: { allow: ['a.b', 'x+'] } };
    expect(isServerAllowed(permissions, 'a.b')).toBe(true);
    expect(isServerAllowed(permissions, 'axb')).toBe(false);
    expect(isServerAllowed(permissions, 'xx')).toBe(false);
    expect(isServerAllowed({ mcps: { allow: ['*'] } }, 'any name at all')).toBe(true);
  });
});

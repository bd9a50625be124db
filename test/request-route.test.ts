/**
 * The route a call takes is an option of the manager (`route`), not a side effect of attaching
 * an inspector: `direct` hands a connected server's calls straight to its session actor, `events`
 * sends them through the registry, where an inspector sees each one. Without the option an
 * inspector gets `events`, and no inspector gets `direct`.
 */
import type { InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpConnectionManagerOptions } from '../src/index.js';
import { inMemoryFixture } from './support/fixtures.js';

/** The registry events an inspector saw while one tool call ran, and the call's answer. */
async function oneCall(options: Pick<McpConnectionManagerOptions, 'route'>) {
  const seen: string[] = [];
  const { factory } = inMemoryFixture();
  const inspect = (event: InspectionEvent) => {
    if (event.type === '@xstate.event') seen.push(event.event.type);
  };
  const manager = new McpConnectionManager({ logger: silentLogger, transportFactory: factory, inspect, ...options });
  try {
    await manager.connect('notes', { url: 'http://127.0.0.1:1/mcp' });
    seen.length = 0;
    const result = await manager.callTool('notes', 'echo', { text: 'hi' });
    return { seen, result };
  } finally {
    await manager.dispose();
  }
}

describe('the request route', () => {
  it('with an inspector and no route given: events, so the inspector sees the call', async () => {
    const { seen, result } = await oneCall({});
    expect(seen).toContain('mcp.callTool');
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it("route: 'direct' keeps calls off the registry even with an inspector attached", async () => {
    const { seen, result } = await oneCall({ route: 'direct' });
    expect(seen).not.toContain('mcp.callTool');
    expect(seen).not.toContain('REQUEST');
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it("route: 'events' is what an explicit events route gives too", async () => {
    const { seen } = await oneCall({ route: 'events' });
    expect(seen).toContain('mcp.callTool');
  });
});

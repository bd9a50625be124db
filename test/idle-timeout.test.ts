import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { inMemoryFixture, settle } from './support/fixtures.js';
import { ROUTES, routeOptions, type Route } from './support/routes.js';

const IDLE_MS = 10_000;

async function connectedManager(route: Route) {
  const clock = new SimulatedClock();
  const fixture = inMemoryFixture();
  const manager = new McpConnectionManager({ ...routeOptions(route), clock, logger: silentLogger, transportFactory: fixture.factory });
  await manager.connect('memory', { command: 'in-memory' }, { idleTimeoutMs: IDLE_MS });
  return { clock, manager };
}

async function advance(clock: SimulatedClock, ms: number) {
  clock.increment(ms);
  await settle();
}

describe.each(ROUTES)('idle timeout (%s route)', (route) => {
  it('disconnects a server that sees no activity for idleTimeoutMs', async () => {
    const { clock, manager } = await connectedManager(route);
    await advance(clock, IDLE_MS - 1);
    expect(manager.getState('memory')).toBe('connected');
    await advance(clock, 1);
    expect(manager.getState('memory')).toBe('disconnected');
    expect(manager.getClient('memory')).toBeUndefined();
    await manager.dispose();
  });

  it('re-arms on touch()', async () => {
    const { clock, manager } = await connectedManager(route);
    await advance(clock, IDLE_MS - 1_000);
    manager.touch('memory');
    await advance(clock, IDLE_MS - 1_000);
    expect(manager.getState('memory')).toBe('connected');
    await advance(clock, 1_000);
    expect(manager.getState('memory')).toBe('disconnected');
    await manager.dispose();
  });

  it('re-arms on every call', async () => {
    const { clock, manager } = await connectedManager(route);
    await advance(clock, IDLE_MS - 1_000);
    await manager.callTool('memory', 'echo', { text: 'still here' });
    await advance(clock, IDLE_MS - 1_000);
    expect(manager.getState('memory')).toBe('connected');
    await manager.readResource('memory', 'fixture://greeting');
    await advance(clock, IDLE_MS - 1_000);
    expect(manager.getState('memory')).toBe('connected');
    await advance(clock, 1_000);
    expect(manager.getState('memory')).toBe('disconnected');
    await manager.dispose();
  });

  it('re-arms when the server is loaded again', async () => {
    const { clock, manager } = await connectedManager(route);
    await advance(clock, IDLE_MS - 1_000);
    await manager.connect('memory');
    await advance(clock, IDLE_MS - 1_000);
    expect(manager.getState('memory')).toBe('connected');
    await manager.dispose();
  });

  it('never cuts a call that outlasts the idle timeout', async () => {
    const { clock, manager } = await connectedManager(route);
    const call = manager.callTool('memory', 'slow', { ms: 300 });
    await advance(clock, IDLE_MS * 5);
    expect(manager.getState('memory')).toBe('connected');
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'done after 300 ms' }]);
    await settle();
    // The timer starts afresh once the last request has settled.
    await advance(clock, IDLE_MS - 1);
    expect(manager.getState('memory')).toBe('connected');
    await advance(clock, 1);
    expect(manager.getState('memory')).toBe('disconnected');
    await manager.dispose();
  });

  it('defaults to 30 minutes for stdio and 5 minutes for http', async () => {
    const { resolveConnectOptions } = await import('../machines/options.js');
    expect(resolveConnectOptions({ command: 'x' }).idleTimeoutMs).toBe(30 * 60_000);
    expect(resolveConnectOptions({ url: 'http://127.0.0.1/mcp' }).idleTimeoutMs).toBe(5 * 60_000);
    expect(resolveConnectOptions({ url: 'http://127.0.0.1/mcp', type: 'sse' }).idleTimeoutMs).toBe(5 * 60_000);
  });

  it('never disconnects with idleTimeoutMs 0', async () => {
    const clock = new SimulatedClock();
    const fixture = inMemoryFixture();
    const manager = new McpConnectionManager({ ...routeOptions(route), clock, logger: silentLogger, transportFactory: fixture.factory });
    await manager.connect('memory', { command: 'in-memory' }, { idleTimeoutMs: 0 });
    await advance(clock, 2 ** 31);
    expect(manager.getState('memory')).toBe('connected');
    await manager.dispose();
  });
});

import { describe, expect, it, vi } from 'vitest';
import { McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { inMemoryFixture, rejectionOf } from './support/fixtures.js';

function memoryManager() {
  return new McpConnectionManager({ logger: silentLogger, transportFactory: inMemoryFixture().factory });
}

describe('McpConnectionManager', () => {
  it('configure() replaces the set by default and merges on request', () => {
    const manager = memoryManager();
    manager.configure({ a: { command: 'memory' }, b: { command: 'memory' } });
    manager.configure({ c: { command: 'memory' } }, undefined, 'merge');
    expect(manager.serverNames.sort()).toEqual(['a', 'b', 'c']);
    manager.configure({ d: { command: 'memory' } });
    expect(manager.serverNames).toEqual(['d']);
  });

  it('connect(name, config) adds the server without dropping the others', async () => {
    const manager = memoryManager();
    manager.configure({ a: { command: 'memory' } });
    await manager.connect('b', { command: 'memory' });
    expect(manager.serverNames.sort()).toEqual(['a', 'b']);
    await manager.dispose();
  });

  it('exposes the client only while connected, and the error only in error', async () => {
    const manager = memoryManager();
    expect(manager.getClient('memory')).toBeUndefined();
    await manager.connect('memory', { command: 'memory' });
    expect(manager.getClient('memory')).toBeDefined();
    expect(manager.getError('memory')).toBeUndefined();
    await manager.disconnect('memory');
    expect(manager.getClient('memory')).toBeUndefined();
    await manager.dispose();
  });

  it('rejects every request after dispose() instead of hanging, with an McpServerError of code DISCONNECTED', async () => {
    const manager = memoryManager();
    await manager.connect('memory', { command: 'memory' });
    await manager.dispose();
    for (const attempt of [
      manager.connect('memory'),
      manager.callTool('memory', 'echo', { text: 'x' }),
      manager.readResource('memory', 'fixture://greeting'),
    ]) {
      const error = await rejectionOf(attempt);
      expect(error.message).toMatch(/was disposed; create a new one/);
      // Narrowable like every other failure: a caller's `instanceof` / `code` branch sees it.
      expect(error).toBeInstanceOf(McpServerError);
      expect(error).toMatchObject({ code: 'DISCONNECTED', server: 'memory' });
    }
  });

  it('takes dispose() and disconnectAll() again after dispose() quietly: nothing is sent to the stopped registry, so XState prints no warning', async () => {
    const manager = memoryManager();
    await manager.connect('memory', { command: 'memory' });
    await manager.dispose();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await manager.dispose();
      await manager.disconnectAll();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('answers touch() and disconnect() of an unknown server quietly', async () => {
    const manager = memoryManager();
    manager.touch('nobody');
    await manager.disconnect('nobody');
    expect(manager.getState('nobody')).toBe('disconnected');
    await manager.dispose();
  });
});

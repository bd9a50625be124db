/**
 * Connect options in `defaults`, per server, and a request's options, as plain JavaScript gives
 * them: a value no attempt could honour (NaN, -1, 'yes') and a misspelt key (`idleTimeout`,
 * `timeout`) were taken silently; NaN failed only at connect, as a CONFIG_ERROR telling to fix the
 * server entry although the value was in `defaults`, and a misspelt key was ignored.
 */
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type UnfinishedTask } from '../src/index.js';

/** The constructor without its types, as JavaScript calls it. */
const construct = (defaults: unknown) => new McpConnectionManager({ logger: silentLogger, defaults } as ConstructorParameters<typeof McpConnectionManager>[0]);
const notes = { command: 'node', args: ['notes.mjs'] };
/** A task as unfinishedTasks() lists it. */
const unfinished: UnfinishedTask = { server: 'notes', tool: 'add', taskId: 'task-1', startedAt: '2026-12-07T00:00:00.000Z' };

describe('connect options as plain JavaScript gives them', () => {
  it.each([
    ['idleTimeoutMs: NaN', { idleTimeoutMs: NaN }, /^new McpConnectionManager: defaults\.idleTimeoutMs is NaN; it must be a number of milliseconds, 0 or more/],
    ['idleTimeoutMs: -1', { idleTimeoutMs: -1 }, /defaults\.idleTimeoutMs is -1;/],
    ['connectTimeoutMs: Infinity', { connectTimeoutMs: Infinity }, /defaults\.connectTimeoutMs is Infinity; it must be a number of milliseconds above 0/],
    ['maxRetries: -3', { maxRetries: -3 }, /defaults\.maxRetries is -3; it must be a whole number/],
    ["autoReconnect: 'yes'", { autoReconnect: 'yes' }, /defaults\.autoReconnect is "yes"; it must be true or false/],
    ['backoff.jitter: 2', { backoff: { jitter: 2 } }, /defaults\.backoff\.jitter is 2; it must be a number from 0 to 1/],
    ['a misspelt key', { idleTimeout: 5 }, /^new McpConnectionManager: "defaults\.idleTimeout" is not an option \(it would be ignored\)\. Did you mean "idleTimeoutMs"\? The options are: autoReconnect, backoff, /],
    ['defaults that are not an object', 5, /^new McpConnectionManager: defaults must be an object of connect options, not 5\./],
  ])('the constructor refuses defaults with %s, naming defaults', (_, defaults, message) => {
    expect(() => construct(defaults)).toThrow(TypeError);
    expect(() => construct(defaults)).toThrow(message);
  });

  it('the constructor takes defaults the per-server rules accept', async () => {
    const manager = construct({ idleTimeoutMs: 0, maxRetries: Infinity, autoReconnect: false, backoff: { jitter: 0.5 } });
    await manager.dispose();
  });

  it('connect and configure refuse a misspelt connect option, naming where', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const loose = manager as unknown as { connect: (...args: unknown[]) => Promise<unknown>; configure: (...args: unknown[]) => void };
    await expect(loose.connect('notes', notes, { idleTimeout: 5 })).rejects.toThrow(/^connect: "options\.idleTimeout" is not an option \(it would be ignored\)\. Did you mean "idleTimeoutMs"\?/);
    expect(() => loose.configure({ notes }, { notes: { idleTimeout: 5 } })).toThrow(/^configure: "options\.notes\.idleTimeout" is not an option/);
    expect(manager.serverNames).toEqual([]);
    await manager.dispose();
  });

  it.each([
    ['callTool', (manager: McpConnectionManager, options: object) => manager.callTool('notes', 'add', {}, options), /^callTool: "timeout" is not an option \(it would be ignored\)\. Did you mean "timeoutMs"\? The options are: maxTotalTimeoutMs, /],
    ['readResource', (manager: McpConnectionManager, options: object) => manager.readResource('notes', 'notes://1', options), /^readResource: "timeout" is not an option \(it would be ignored\)\. Did you mean "timeoutMs"\? The options are: signal, timeoutMs, timeoutSource\./],
    ['resumeTask', (manager: McpConnectionManager, options: object) => manager.resumeTask(unfinished, options), /^resumeTask: "timeout" is not an option \(it would be ignored\)\. Did you mean "timeoutMs"\? The options are: maxTotalTimeoutMs, /],
  ])('%s refuses a misspelt option at once', async (_, request, message) => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    manager.configure({ notes });
    await expect(request(manager, { timeout: 5_000 })).rejects.toThrow(message);
    await manager.dispose();
  });
});

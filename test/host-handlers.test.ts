import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CreateMessageRequest } from '@modelcontextprotocol/client';
import { McpConnectionManager, type McpConnectionManagerOptions } from '../src/manager.js';
import type { HostRequestContext } from '../src/connection/host-handlers.js';
import type { McpLogEmitted } from '../machines/types.js';
import { silentLogger } from '../src/logger.js';
import { everythingStdio, textOf } from './support/everything.js';
import { failOnUnhandledRejections } from './support/unhandled-rejections.js';

failOnUnhandledRejections();

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

async function everything(options: McpConnectionManagerOptions = {}) {
  manager = new McpConnectionManager({ logger: silentLogger, ...options });
  const manifest = await manager.connect('everything', everythingStdio());
  return { manager, manifest };
}

/** Resolves with the first event of this type that matches. */
function nextEvent<T>(subscribe: (listener: (event: T) => void) => () => void, matches: (event: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const stop = subscribe((event) => {
      if (!matches(event)) return;
      stop();
      resolve(event);
    });
  });
}

const answer = (text: string) => ({ role: 'assistant' as const, model: 'test-model', content: { type: 'text' as const, text } });

describe('server → client requests (handlers)', () => {
  it('declares no sampling, elicitation or roots without handlers, so server-everything lists none of the tools that need them', async () => {
    const { manager } = await everything();
    const names = (await manager.getClient('everything')!.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('trigger-sampling-request');
    expect(names).not.toContain('trigger-elicitation-request');
    expect(names).not.toContain('get-roots-list');
  });

  it('trigger-sampling-request reaches the sampling handler with the server name and a signal; its answer is in the tool result', async () => {
    const sampling = vi.fn(async (params: CreateMessageRequest['params'], context: HostRequestContext) => {
      expect(context.signal).toBeInstanceOf(AbortSignal);
      return answer(`sampled for ${context.server}: ${(params.messages[0]!.content as { text: string }).text}`);
    });
    const { manager } = await everything({ handlers: { sampling } });
    const result = await manager.callTool('everything', 'trigger-sampling-request', { prompt: 'the sky', maxTokens: 5 });
    expect(sampling).toHaveBeenCalledTimes(1);
    expect(sampling.mock.calls[0]![0].maxTokens).toBe(5);
    expect(textOf(result)).toContain('sampled for everything');
    expect(textOf(result)).toContain('the sky');
  });

  it('trigger-elicitation-request reaches the elicitation handler; its answer (with schema defaults filled in) is in the tool result', async () => {
    const elicitation = vi.fn(async () => ({ action: 'accept' as const, content: { name: 'Ada Lovelace', check: true } }));
    const { manager } = await everything({ handlers: { elicitation } });
    const result = await manager.callTool('everything', 'trigger-elicitation-request', {});
    expect(elicitation).toHaveBeenCalledTimes(1);
    expect(elicitation.mock.calls[0]).toEqual([expect.objectContaining({ message: expect.stringContaining('Please provide') }), expect.objectContaining({ server: 'everything' })]);
    expect(textOf(result)).toContain('Ada Lovelace');
    // `applyDefaults`: the integer field the person left out comes back with its default, 42.
    expect(textOf(result)).toMatch(/"integer":\s*42/);
  });

  it('get-roots-list returns what setRoots set, before and after a change (roots/list_changed)', async () => {
    const { manager } = await everything({ handlers: { roots: [{ uri: 'file:///first', name: 'first' }] } });
    const first = await manager.callTool('everything', 'get-roots-list', {});
    expect(textOf(first)).toContain('file:///first');

    const refetched = nextEvent<McpLogEmitted>(
      (listener) => manager.on('mcp.log', listener),
      (event) => String(event.data).startsWith('Roots updated'),
    );
    await manager.setRoots([{ uri: 'file:///second', name: 'second' }]);
    await refetched;
    const second = await manager.callTool('everything', 'get-roots-list', {});
    expect(textOf(second)).toContain('file:///second');
    expect(textOf(second)).not.toContain('file:///first');
  });

  it('setRoots before any handler declares roots for servers connected afterwards', async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    await manager.setRoots([{ uri: 'file:///late', name: 'late' }]);
    await manager.connect('everything', everythingStdio());
    expect(textOf(await manager.callTool('everything', 'get-roots-list', {}))).toContain('file:///late');
  });

  it('a handler that throws becomes an MCP error the server sees; the connection stays up', async () => {
    const { manager } = await everything({
      handlers: {
        sampling: () => {
          throw new Error('no model configured');
        },
      },
    });
    const failed = await manager.callTool('everything', 'trigger-sampling-request', { prompt: 'x' }).then(
      (result) => textOf(result),
      (error: Error) => error.message,
    );
    expect(failed).toContain("The host's sampling handler failed: no model configured");
    expect(manager.getState('everything')).toBe('connected');
    expect(textOf(await manager.callTool('everything', 'echo', { message: 'still here' }))).toContain('still here');
  });

  it('a handler that runs past its time gets its signal aborted and the server a timeout error', async () => {
    let handlerSignal: AbortSignal | undefined;
    const { manager } = await everything({
      handlers: {
        timeoutMs: 100,
        elicitation: ({}, { signal }) => {
          handlerSignal = signal;
          return new Promise(() => {});
        },
      },
    });
    const failed = await manager.callTool('everything', 'trigger-elicitation-request', {}).then(
      (result) => textOf(result),
      (error: Error) => error.message,
    );
    expect(failed).toContain("The host's elicitation handler did not answer within 100 ms");
    expect(handlerSignal?.aborted).toBe(true);
    expect(manager.getState('everything')).toBe('connected');
  });
});

describe('server log messages and resource updates', () => {
  it('toggle-simulated-logging produces mcp.log events and calls the logging handler', async () => {
    const logging = vi.fn();
    const { manager } = await everything({ handlers: { logging } });
    await manager.setLoggingLevel('debug');
    const logged = nextEvent<McpLogEmitted>((listener) => manager.on('mcp.log', listener), (event) => /-level message|level-message/.test(String(event.data)));
    await manager.callTool('everything', 'toggle-simulated-logging', {});
    const event = await logged;
    expect(event).toMatchObject({ type: 'mcp.log', server: 'everything', level: expect.any(String) });
    expect(logging).toHaveBeenCalledWith(expect.objectContaining({ server: 'everything', data: event.data }));
  });

  it('logging/setLevel is respected: at "emergency" the info-level acknowledgement of a subscribe is not sent', async () => {
    const { manager } = await everything();
    const events: McpLogEmitted[] = [];
    manager.on('mcp.log', (event) => events.push(event));
    await manager.subscribeResource('everything', 'demo://resource/static/document/architecture.md');
    expect(events.some((event) => String(event.data).includes('Received Subscribe'))).toBe(true);

    await manager.setLoggingLevel('emergency');
    events.length = 0;
    await manager.subscribeResource('everything', 'demo://resource/static/document/features.md');
    await manager.callTool('everything', 'echo', { message: 'flush' });
    expect(events).toEqual([]);
  });

  it('a subscribed resource reports updates as mcp.resourceUpdated', async () => {
    const { manager } = await everything();
    const uri = 'demo://resource/static/document/architecture.md';
    await manager.subscribeResource('everything', uri);
    const updated = nextEvent<{ server: string; uri: string }>((listener) => manager.on('mcp.resourceUpdated', listener), () => true);
    await manager.callTool('everything', 'toggle-subscriber-updates', {});
    await expect(updated).resolves.toEqual({ type: 'mcp.resourceUpdated', server: 'everything', uri });
  });

  it('subscribing on a server without resources.subscribe is refused clearly', async () => {
    manager = new McpConnectionManager({ logger: silentLogger });
    const { stdioFixture } = await import('./support/fixtures.js');
    await manager.connect('fixture', stdioFixture());
    await expect(manager.subscribeResource('fixture', 'fixture://greeting')).rejects.toThrow(/does not offer resource subscriptions/);
  });
});

/**
 * A caller's AbortSignal, on both request routes, against the reference server over stdio: one
 * signal may serve many calls (an agent's whole run) without collecting a listener per call, and
 * aborting it cancels only the call still in flight. An embedder's `mcp.cancel` cancels on the
 * server too.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback, type AnyActorRef } from 'xstate';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import type { McpProgressEvent, McpReply } from '../machines/types.js';
import { everythingStdio, recordingTransports, textOf } from './support/everything.js';
import { rejectionOf } from './support/fixtures.js';
import { ROUTES, routeOptions } from './support/routes.js';
import { failOnUnhandledRejections } from './support/unhandled-rejections.js';

failOnUnhandledRejections();

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

describe.each(ROUTES)('one caller signal for many calls (%s route)', (route) => {
  async function connectedRecordingManager() {
    const { transportFactory, sentMethods } = recordingTransports();
    manager = new McpConnectionManager({ logger: silentLogger, transportFactory, ...routeOptions(route) });
    await manager.connect('everything', everythingStdio());
    return { manager, sentMethods };
  }

  it('keeps no abort listener on it once the calls have finished', async () => {
    const { manager } = await connectedRecordingManager();
    const signal = new AbortController().signal;
    for (let call = 0; call < 20; call++) {
      expect(textOf(await manager.callTool('everything', 'echo', { message: `call ${call}` }, { signal }))).toContain(`call ${call}`);
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('cancels only the call in flight when it aborts: one notifications/cancelled, for that call', async () => {
    const { manager, sentMethods } = await connectedRecordingManager();
    const controller = new AbortController();
    const { signal } = controller;
    for (let call = 0; call < 5; call++) await manager.callTool('everything', 'echo', { message: 'done' }, { signal });

    let started!: () => void;
    const firstProgress = new Promise<void>((resolve) => (started = resolve));
    const long = manager.callTool('everything', 'trigger-long-running-operation', { duration: 10, steps: 20 }, { signal, onProgress: () => started() });
    await firstProgress;
    controller.abort();

    expect((await rejectionOf(long)).name).toBe('AbortError');
    const longRequest = sentMethods('tools/call').at(-1) as unknown as { id: number };
    await expect.poll(() => sentMethods('notifications/cancelled').length).toBeGreaterThan(0);
    expect(sentMethods('notifications/cancelled').map((message) => message.params?.requestId)).toEqual([longRequest.id]);
    expect(textOf(await manager.callTool('everything', 'echo', { message: 'after' }))).toContain('after');
  });
});

describe("an embedder's mcp.cancel", () => {
  it('answers mcp.failed with an AbortError at once and sends the server notifications/cancelled', async () => {
    const { transportFactory, sentMethods } = recordingTransports();
    manager = new McpConnectionManager({ logger: silentLogger, transportFactory });
    await manager.connect('everything', everythingStdio());
    const replies: Array<McpReply | McpProgressEvent> = [];
    const inbox = createActor(fromCallback<McpReply | McpProgressEvent>(({ receive }) => receive((reply) => void replies.push(reply)))).start();
    const replyTo: AnyActorRef = inbox;

    manager.actor.send({
      type: 'mcp.callTool',
      server: 'everything',
      tool: 'trigger-long-running-operation',
      arguments: { duration: 10, steps: 20 },
      replyTo,
      requestId: 'long',
      progress: true,
    });
    await expect.poll(() => replies.some((reply) => reply.type === 'mcp.progress')).toBe(true);
    manager.actor.send({ type: 'mcp.cancel', server: 'everything', requestId: 'long', reason: 'the user moved on' });

    const failed = replies.find((reply) => reply.type === 'mcp.failed');
    expect(failed?.type === 'mcp.failed' && failed.error.name).toBe('AbortError');
    const longRequest = sentMethods('tools/call').at(-1) as unknown as { id: number };
    expect(sentMethods('notifications/cancelled').map((message) => message.params)).toEqual([{ requestId: longRequest.id, reason: 'the user moved on' }]);
    inbox.stop();
  });
});

/**
 * The session actor answers a cancelled request even when an abort listener on the request's
 * signal throws. The scripted registry (the real registry, server chart and session actor) hands
 * the host's handlers the request's own signal; a roots handler that adds a listener which throws
 * on abort made `cancel()` throw before its answer went out: the caller never heard back. Then the
 * throw went on out of the session actor, which stopped: the server was left disconnected.
 */
import { expect, it } from 'vitest';
import { createActor, fromCallback, type AnyActorRef, type EventObject } from 'xstate';
import { createScriptedRegistry } from 'mcp-statechart/testing';
import { text, withTools } from './support/agent-script.js';

const settle = () => new Promise((done) => setImmediate(done));

it('a cancel is answered though an abort listener on the request signal throws, and the server stays connected', async () => {
  const registry = createActor(
    createScriptedRegistry({
      servers: {
        demo: {
          manifest: withTools('deploy', 'status'),
          tools: { deploy: [{ ask: [{ roots: true }], reply: () => ({ answer: text('deployed') }) }], status: [{ answer: text('all well') }] },
        },
      },
      handlers: {
        roots: (context) => {
          context.signal.addEventListener('abort', () => {
            throw new Error('a listener of the host that throws');
          });
          // The host never answers: only the cancel ends the call.
          return new Promise(() => {});
        },
      },
    }).logic,
    { input: {} },
  );
  const errors: unknown[] = [];
  registry.subscribe({ error: (error) => errors.push(error) });
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  registry.start();
  const inbox: EventObject[] = [];
  const replyTo = createActor(fromCallback<EventObject>(({ receive }) => receive((event) => inbox.push(event)))).start() as AnyActorRef;
  registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'load' });
  await settle();
  registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'deploy', replyTo, requestId: 'call' });
  await settle();
  registry.send({ type: 'mcp.cancel', server: 'demo', requestId: 'call', reason: 'the user gave up' });
  for (let tries = 0; tries < 20 && !inbox.some((event) => event.type === 'mcp.failed'); tries++) await settle();
  expect(inbox.find((event) => event.type === 'mcp.failed')).toMatchObject({ requestId: 'call', error: { code: 'ABORTED' } });
  // The listener's throw is the host's own: the server stays connected and the next call is answered.
  registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'status', replyTo, requestId: 'next' });
  for (let tries = 0; tries < 20 && !inbox.some((event) => 'requestId' in event && event.requestId === 'next'); tries++) await settle();
  expect(inbox.find((event) => 'requestId' in event && event.requestId === 'next')).toMatchObject({ type: 'mcp.toolResult', result: text('all well') });
  expect(errors).toEqual([]);
  // The throw is not lost: it is a process warning, as the host can watch for one.
  for (let tries = 0; tries < 20 && warnings.length === 0; tries++) await settle();
  process.off('warning', onWarning);
  expect(warnings.map(({ name, message }) => ({ name, message }))).toEqual([
    { name: 'AbortListenerWarning', message: 'An abort listener of a cancelled MCP request threw (the cancel went on): a listener of the host that throws' },
  ]);
  registry.stop();
});

/**
 * The session actor answers a cancelled request even when an abort listener on the request's
 * signal throws. The scripted registry (the real registry, server chart and session actor) hands
 * the host's handlers the request's own signal; a roots handler that adds a listener which throws
 * on abort made `cancel()` throw before its answer went out: the caller never heard back.
 */
import { expect, it } from 'vitest';
import { createActor, fromCallback, type AnyActorRef, type EventObject } from 'xstate';
import { createScriptedRegistry } from 'mcp-statechart/testing';
import { text, withTools } from './support/agent-script.js';

const settle = () => new Promise((done) => setImmediate(done));

it('a cancel is answered though an abort listener on the request signal throws', async () => {
  const registry = createActor(
    createScriptedRegistry({
      servers: { demo: { manifest: withTools('deploy'), tools: { deploy: [{ ask: [{ roots: true }], reply: () => ({ answer: text('deployed') }) }] } } },
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
  // What the throw does to the actor afterwards is not this test's subject; kept off the run's output.
  registry.subscribe({ error: () => {} });
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
  registry.stop();
});

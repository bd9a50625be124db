/**
 * The scripted registry's progress and input requests: a scripted tool reports progress on the
 * actor system's clock to a request that asked for it, and asks the host (elicitation,
 * sampling, roots) through the same handlers the real registry takes, its answer following
 * from theirs.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, SimulatedClock, type AnyActorRef, type EventObject } from 'xstate';
import type { McpReply } from 'mcp-statechart';
import { createScriptedRegistry, type RegistryScript } from 'mcp-statechart/testing';
import { text, withTools } from './support/agent-script.js';

function runRegistry(script: RegistryScript) {
  const clock = new SimulatedClock();
  const registry = createActor(createScriptedRegistry(script).logic, { clock, input: {} }).start();
  const inbox: EventObject[] = [];
  const replyTo = createActor(fromCallback<EventObject>(({ receive }) => receive((event) => inbox.push(event)))).start() as AnyActorRef;
  registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'load' });
  return { registry, replyTo, inbox, clock };
}

const settle = () => new Promise((done) => setImmediate(done));
const resultOf = (inbox: EventObject[]) => inbox.find((event): event is Extract<McpReply, { type: 'mcp.toolResult' }> => event.type === 'mcp.toolResult')?.result;
const failureOf = (inbox: EventObject[]) => inbox.find((event): event is Extract<McpReply, { type: 'mcp.failed' }> => event.type === 'mcp.failed')?.error;

describe('scripted progress', () => {
  const script: RegistryScript = {
    servers: {
      demo: {
        manifest: withTools('build'),
        tools: {
          build: [
            {
              answer: text('built'),
              delayMs: 3_000,
              progress: [
                { progress: 1, total: 3, message: 'compiling', afterMs: 1_000 },
                { progress: 2, total: 3, afterMs: 2_000 },
                { progress: 3, total: 3, afterMs: 4_000 },
              ],
            },
          ],
        },
      },
    },
  };

  it('reaches a request that asked for progress at the scripted times, and none after the answer', async () => {
    const { registry, replyTo, inbox, clock } = runRegistry(script);
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'build', replyTo, requestId: 'call', progress: true });
    await settle();
    const progress = () => inbox.filter((event) => event.type === 'mcp.progress');
    expect(progress()).toEqual([]);
    clock.increment(1_000);
    await settle();
    expect(progress()).toEqual([{ type: 'mcp.progress', requestId: 'call', server: 'demo', progress: 1, total: 3, message: 'compiling' }]);
    clock.increment(1_000);
    await settle();
    expect(progress()).toHaveLength(2);
    clock.increment(2_000);
    await settle();
    expect(resultOf(inbox)).toEqual(text('built'));
    // The note scheduled after the answer never comes.
    expect(progress()).toHaveLength(2);
  });

  it('sends none to a request that did not ask for progress', async () => {
    const { registry, replyTo, inbox, clock } = runRegistry(script);
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'build', replyTo, requestId: 'call' });
    await settle();
    clock.increment(5_000);
    await settle();
    expect(inbox.map((event) => event.type)).toEqual(['mcp.loaded', 'mcp.toolResult']);
  });
});

describe('scripted input requests', () => {
  it("times an answer's progress after an ask from the host's answer", async () => {
    const { registry, replyTo, inbox, clock } = runRegistry({
      servers: {
        demo: {
          manifest: withTools('deploy'),
          tools: {
            deploy: [
              {
                ask: [{ roots: true }],
                delayMs: 1_000,
                reply: () => ({ answer: text('deployed'), delayMs: 2_000, progress: [{ progress: 1, total: 2, afterMs: 500 }] }),
              },
            ],
          },
        },
      },
      handlers: { roots: [] },
    });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'deploy', replyTo, requestId: 'call', progress: true });
    clock.increment(1_000);
    await settle();
    expect(inbox.map((event) => event.type)).toEqual(['mcp.loaded']);
    clock.increment(500);
    await settle();
    expect(inbox.map((event) => event.type)).toEqual(['mcp.loaded', 'mcp.progress']);
    clock.increment(1_500);
    await settle();
    expect(resultOf(inbox)).toEqual(text('deployed'));
  });

  it("asks the host's handlers in order and answers from what they said", async () => {
    const asked: string[] = [];
    const { registry, replyTo, inbox } = runRegistry({
      servers: {
        demo: {
          manifest: withTools('delete'),
          tools: {
            delete: [
              {
                ask: [{ roots: true }, { elicitation: { mode: 'form', message: 'Delete 3 files?', requestedSchema: { type: 'object', properties: {} } } }],
                reply: ([roots, confirmation]) =>
                  confirmation && 'elicitation' in confirmation && confirmation.elicitation.action === 'accept' && roots && 'roots' in roots
                    ? { answer: text(`deleted under ${roots.roots[0]?.uri}`) }
                    : { fail: 'REQUEST_FAILED', message: 'cancelled by the user' },
              },
            ],
          },
        },
      },
      handlers: {
        roots: [{ uri: 'file:///project' }],
        elicitation: (params, context) => {
          asked.push(`${context.server}: ${params.message}`);
          return { action: 'accept', content: {} };
        },
      },
    });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'delete', replyTo, requestId: 'call' });
    await settle();
    expect(asked).toEqual(['demo: Delete 3 files?']);
    expect(resultOf(inbox)).toEqual(text('deleted under file:///project'));
  });

  it('takes a declined answer to its scripted failure, and a sampling answer to its result', async () => {
    const { registry, replyTo, inbox } = runRegistry({
      servers: {
        demo: {
          manifest: withTools('confirm', 'summarise'),
          tools: {
            confirm: [
              {
                ask: [{ elicitation: { mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } }],
                reply: ([answer]) => (answer && 'elicitation' in answer && answer.elicitation.action === 'accept' ? { answer: text('done') } : { fail: 'REQUEST_FAILED', message: 'declined' }),
              },
            ],
            summarise: [
              {
                ask: [{ sampling: { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 10 } }],
                reply: ([answer]) => ({ answer: text(answer && 'sampling' in answer ? JSON.stringify(answer.sampling.content) : '?') }),
              },
            ],
          },
        },
      },
      handlers: {
        elicitation: () => ({ action: 'decline' }),
        sampling: () => ({ role: 'assistant', model: 'scripted', content: { type: 'text', text: 'A short summary.' } }),
      },
    });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'confirm', replyTo, requestId: 'confirm' });
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'summarise', replyTo, requestId: 'summarise' });
    await settle();
    expect(failureOf(inbox)).toMatchObject({ code: 'REQUEST_FAILED', message: 'declined' });
    expect(resultOf(inbox)).toEqual(text(JSON.stringify({ type: 'text', text: 'A short summary.' })));
  });

  it('fails the request clearly when no handler answers that kind, and past 8 rounds', async () => {
    const elicitation = { mode: 'form' as const, message: 'Again?', requestedSchema: { type: 'object' as const, properties: {} } };
    const { registry, replyTo, inbox } = runRegistry({
      servers: {
        demo: {
          manifest: withTools('sample', 'forever'),
          tools: {
            sample: [{ ask: [{ sampling: { messages: [], maxTokens: 1 } }], reply: () => ({ answer: text('never') }) }],
            forever: [{ ask: [{ elicitation }], reply: function again() { return { ask: [{ elicitation }], reply: again }; } }],
          },
        },
      },
      handlers: { elicitation: () => ({ action: 'accept', content: {} }) },
    });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'sample', replyTo, requestId: 'sample' });
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'forever', replyTo, requestId: 'forever' });
    for (let turn = 0; turn < 20; turn += 1) await settle();
    const failures = inbox.filter((event): event is Extract<McpReply, { type: 'mcp.failed' }> => event.type === 'mcp.failed');
    expect(failures.map((event) => [event.requestId, event.error.message])).toEqual([
      ['sample', 'MCP server "demo" asked for sampling, but the scripted registry was given no sampling handler.'],
      ['forever', 'MCP server "demo": calling tool "forever" asked the host more than 8 rounds.'],
    ]);
  });
});

/**
 * A registry created with servers it cannot take (plain JavaScript or a cast may give any input)
 * starts all the same, says why in the log, and answers every request `mcp.failed` with it
 * (CONFIG_ERROR): it neither stops on an uncaught error as it starts nor leaves a request waiting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback, type Actor } from 'xstate';
import { createRegistryLogic, silentLogger, type McpReply } from '../src/index.js';
import { quoted } from '../machines/control-characters.js';

const actors: Array<{ stop(): void }> = [];
afterEach(() => {
  for (const actor of actors.splice(0)) actor.stop();
});

function inbox() {
  const replies: McpReply[] = [];
  const ref = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  actors.push(ref);
  return { ref, replies };
}

function started(input: unknown) {
  const logged: string[] = [];
  const logger = { ...silentLogger, error: (message: string) => logged.push(message) };
  const registry: Actor<ReturnType<typeof createRegistryLogic>> = createActor(createRegistryLogic({ logger, taskJournal: false }), { input: input as never });
  const errors: unknown[] = [];
  registry.subscribe({ error: (error) => errors.push(error) });
  registry.start();
  actors.push(registry);
  return { registry, logged, errors };
}

const BELL = 'bell\u0007name';
const refusal = (problem: string) =>
  `This registry cannot start: the registry input: ${problem}. It answers every request with this error: create it again with servers as { name: { command, args } } or { name: { url } }.`;

describe('a registry created with servers it cannot take', () => {
  it.each([
    ['servers that are a string', { servers: 'notes' }, refusal('the servers must be an object of server definitions by name, not "notes"')],
    ['servers that are a list', { servers: [{ command: 'notes' }] }, refusal('the servers must be an object of server definitions by name, not an array')],
    ['a server entry that is null', { servers: { notes: null } }, refusal('the definition of server "notes" must be an object ({ command, args } or { url }), not null')],
    [
      'a server entry that is null under a name with a control character',
      { servers: { [BELL]: null } },
      refusal(`the definition of server ${quoted(BELL)} must be an object ({ command, args } or { url }), not null`),
    ],
    ['an input that is not an object', 'notes', 'This registry cannot start: the registry input must be an object ({ servers }), not "notes". It answers every request with this error: create it again with servers as { name: { command, args } } or { name: { url } }.'],
  ])('given %s, starts, logs why, and answers every request mcp.failed with it', async (_given, input, message) => {
    const { registry, logged, errors } = started(input);
    expect(registry.getSnapshot().status).toBe('active');
    expect(errors).toEqual([]);
    expect(logged).toEqual([message]);
    expect(logged[0]).not.toContain('\u0007');

    const { ref, replies } = inbox();
    registry.send({ type: 'mcp.load', server: 'notes', replyTo: ref, requestId: 'load' });
    registry.send({ type: 'mcp.callTool', server: 'notes', tool: 'echo', arguments: {}, replyTo: ref, requestId: 'call' });
    registry.send({ type: 'mcp.readResource', server: BELL, uri: 'file:///a', replyTo: ref, requestId: 'read' });
    await Promise.resolve();
    const failed = (requestId: string, server: string) => ({ type: 'mcp.failed', requestId, server, error: { code: 'CONFIG_ERROR', server, message } });
    expect(replies).toMatchObject([failed('load', 'notes'), failed('call', 'notes'), failed('read', BELL)]);
  });
});

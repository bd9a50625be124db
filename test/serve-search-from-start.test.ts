/**
 * search_mcp_tools in `serve` over stdio: offered from the first tools/list, also when the
 * manifest index holds nothing yet (a person who never ran `mcp-statechart index`), so the tool
 * definitions stay the same for the session while the servers the host's model loads become
 * searchable.
 */
import { describe, expect, it } from 'vitest';
import { answerText, initializeAndLoad, startServe } from './support/serve-host.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';

const ended = servesEndedAfterEachTest();

interface SearchAnswer {
  tools: Array<{ server: string; tool: string }>;
  notes: string[];
}

describe('search_mcp_tools in serve that starts with an empty index', () => {
  it('is offered from the start; before any load it says how servers become searchable, after load_mcp it finds their tools', async () => {
    const serve = ended(startServe());
    await initializeAndLoad(serve, []);

    serve.send({ id: 10, method: 'tools/list' });
    const listed = (await serve.answer(10)).result as unknown as { tools: Array<{ name: string }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['load_mcp', 'call_mcp_tool', 'read_mcp_resource', 'search_mcp_tools']);

    serve.send({ id: 11, method: 'tools/call', params: { name: 'search_mcp_tools', arguments: { query: 'echo text' } } });
    const before = JSON.parse(answerText(await serve.answer(11))) as SearchAnswer;
    expect(before.tools).toEqual([]);
    expect(before.notes[0]).toBe(
      'No server has been loaded or indexed yet, so no tool could be searched. load_mcp lists the servers; each one loaded becomes searchable.',
    );

    serve.send({ id: 12, method: 'tools/call', params: { name: 'load_mcp', arguments: { server: 'fixture' } } });
    expect((await serve.answer(12)).result?.isError).toBeFalsy();
    serve.send({ id: 13, method: 'tools/call', params: { name: 'search_mcp_tools', arguments: { query: 'echo text' } } });
    const after = JSON.parse(answerText(await serve.answer(13))) as SearchAnswer;
    expect(after.tools[0]).toEqual(expect.objectContaining({ server: 'fixture', tool: 'echo' }));

    // The definitions the host has stay as they were: no list change was sent.
    expect(serve.messages().filter((message) => message.method === 'notifications/tools/list_changed')).toEqual([]);
  }, 60_000);
});

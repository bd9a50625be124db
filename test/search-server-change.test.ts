/**
 * A server's change (its `list_changed`, a new version indexed) re-indexes only the tools whose
 * definitions changed, came or went; the others keep their place, and the index's cache of query
 * words keeps the words the change did not touch. Whatever was kept, every query ranks as in a
 * ranking built afresh with the catalogue as it now is, with the same scores.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ToolSearch, type SearchableServer } from '../src/search/index.js';

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(' ');
const word = (at: number) => WORDS[at % WORDS.length]!;

function tool(name: string, description: string, parameter: string): Tool {
  return { name, description, inputSchema: { type: 'object', properties: { [parameter]: { type: 'string', description: `the ${parameter} to use` } } } };
}

interface Listed {
  server: SearchableServer;
  tools: Tool[];
}

/** Twelve servers of five tools each, their words drawn from one small vocabulary so that they share many. */
const catalogue = (): Listed[] =>
  Array.from({ length: 12 }, (_, at) => ({
    server: { name: `server-${at}`, description: `${word(at)} service for ${word(at * 7)} records` },
    tools: Array.from({ length: 5 }, (_, index) => tool(`${word(at + index)}_${word(at * 3 + index)}`, `${word(index * 5 + at)} the ${word(at + 2 * index)} records of a ${word(index)} list`, word(at + index + 1))),
  }));

const QUERIES = ['alpha records', 'bravo the charlie list', 'delta service', 'echo foxtrot', 'golf hotel india records', 'kilo', 'zulu yankee', 'renamed whiskey records', 'mike november list'];

/**
 * Each query's first ten, with their scores to twelve digits: the words used alike (word-contexts.ts)
 * sum their cosines in the order the catalogue's words came, which a change reorders (main's code
 * too), so a score may differ from the one built afresh in its last bit.
 */
const rankings = (search: ToolSearch) => QUERIES.map((query) => search.searchTools(query, 10).map(({ server, tool, score }) => `${server}/${tool.name} ${score.toPrecision(12)}`));

const builtAfresh = (listed: readonly Listed[]) => {
  const search = new ToolSearch();
  for (const { server, tools } of listed) search.setServer(server, tools);
  return search;
};

/** A search over the catalogue, asked every query once (so that the cache of query words is full), then `change` applied to one server's listing and set. */
function changedOne(change: (listed: Listed) => Listed): { changed: ToolSearch; now: Listed[] } {
  const now = catalogue();
  const changed = builtAfresh(now);
  rankings(changed);
  now[5] = change(now[5]!);
  changed.setServer(now[5].server, now[5].tools);
  return { changed, now };
}

describe("one server's change among many", () => {
  it("a tool's description changed (words gone, a new word, the field's average moved): as built afresh", () => {
    const { changed, now } = changedOne(({ server, tools }) => ({ server, tools: tools.map((entry, at) => (at === 2 ? { ...entry, description: 'zulu yankee whiskey renamed records' } : entry)) }));
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
    expect(changed.searchTools('zulu yankee', 1)[0]?.tool.description).toBe('zulu yankee whiskey renamed records');
  });

  it('a tool added and another taken out: as built afresh', () => {
    const { changed, now } = changedOne(({ server, tools }) => ({ server, tools: [...tools.slice(1), tool('whiskey_records', 'renamed the zulu records', 'yankee')] }));
    expect(changed.toolCount).toBe(60);
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
  });

  it("a tool's parameter changed, its name and description the same: as built afresh", () => {
    const { changed, now } = changedOne(({ server, tools }) => ({ server, tools: tools.map((entry, at) => (at === 0 ? tool(entry.name, entry.description!, 'yankee') : entry)) }));
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
  });

  it("the server's purpose changed (every tool of it holds its words): as built afresh", () => {
    const { changed, now } = changedOne(({ server, tools }) => ({ server: { ...server, description: 'zulu yankee service for renamed records' }, tools }));
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
  });

  it('the same tools listed again as new objects: as before, each result the object last listed', () => {
    const { changed, now } = changedOne(({ server, tools }) => ({ server: { ...server }, tools: tools.map((entry) => structuredClone(entry)) }));
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
    const found = changed.searchTools(now[5]!.tools[1]!.name, 1)[0]!;
    expect(found.tool).toBe(now[5]!.tools[1]);
  });

  it("a tool's description or parameter changed, the server given as a new object: server search as built afresh, answering with the record last set", () => {
    const serverRankings = (search: ToolSearch) => QUERIES.map((query) => search.searchServers(query, 5).map(({ name }) => name));
    for (const change of [
      (entry: Tool) => ({ ...entry, description: 'zulu yankee whiskey renamed records' }),
      (entry: Tool) => tool(entry.name, entry.description!, 'yankee'),
    ]) {
      const { changed, now } = changedOne(({ server, tools }) => ({ server: { ...server }, tools: tools.map((entry, at) => (at === 1 ? change(entry) : entry)) }));
      expect(serverRankings(changed)).toEqual(serverRankings(builtAfresh(now)));
      expect(changed.searchServers(now[5]!.server.description!, 1)[0]).toBe(now[5]!.server);
    }
  });

  it('two tools of one name, one of them changed: the other stays, as built afresh', () => {
    const { changed, now } = changedOne(({ server, tools }) => ({ server, tools: [...tools, { ...tools[0]!, description: 'zulu the twin' }] }));
    const again = { server: now[5]!.server, tools: now[5]!.tools.map((entry, at) => (at === 5 ? { ...entry, description: 'yankee the twin' } : entry)) };
    now[5] = again;
    changed.setServer(again.server, again.tools);
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
  });

  it("the caller's array changed after setServer (a tool pushed, others spliced out): the next change as built afresh", () => {
    const now = catalogue();
    const changed = new ToolSearch();
    for (const { server, tools } of now) changed.setServer(server, tools);
    // The caller's own array, reused: it once stood for what was indexed, and a pushed tool had no document ("reading 'tool' of undefined").
    now[4]!.tools.push(tool('zulu_yankee', 'zulu the yankee records', 'whiskey'));
    now[6]!.tools.splice(0, 2);
    changed.setServer(now[4]!.server, now[4]!.tools);
    changed.setServer(now[6]!.server, now[6]!.tools);
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
  });

  it("a tool changed in place by its caller (description, name, a parameter's description) and given again: as built afresh", () => {
    const { changed, now } = changedOne(({ server, tools }) => {
      const [first, second, third] = tools as [Tool, Tool, Tool];
      first.description = 'zulu yankee whiskey renamed records';
      second.name = 'whiskey_renamed';
      (third.inputSchema.properties as Record<string, { description: string }>)[Object.keys(third.inputSchema.properties!)[0]!]!.description = 'the zulu to use';
      return { server, tools };
    });
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
    expect(changed.searchTools('zulu yankee', 1)[0]?.tool.description).toBe('zulu yankee whiskey renamed records');
    expect(changed.searchTools('whiskey_renamed', 1)[0]?.tool.name).toBe('whiskey_renamed');
  });

  it('a server taken out and set again, with other servers changed between: as built afresh', () => {
    const { changed, now } = changedOne(({ server, tools }) => ({ server, tools: tools.slice(0, 3) }));
    changed.removeServer('server-2');
    rankings(changed);
    now[7] = { server: now[7]!.server, tools: now[7]!.tools.map((entry, at) => (at === 4 ? { ...entry, description: `${entry.description} zulu` } : entry)) };
    changed.setServer(now[7].server, now[7].tools);
    rankings(changed);
    changed.setServer(now[2]!.server, now[2]!.tools);
    expect(rankings(changed)).toEqual(rankings(builtAfresh(now)));
  });
});

/**
 * Passage evidence in the ranking: a tool one passage of which (its name and title, one sentence of
 * its description, its parameters) holds the query's two most specific words ranks above a tool
 * that holds the same words as often, in the same order, but in different sentences.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ToolSearch } from '../src/search/index.js';

function tool(name: string, description: string): Tool {
  return { name, description, inputSchema: { type: 'object', properties: {} } };
}

const top = (search: ToolSearch, query: string) => search.searchTools(query, 2).map(({ tool }) => tool.name);

// The same words in the same order (so the same word pairs): only where the sentences end differs.
const APART = 'Archives the ledger. Exports each invoice.';
const TOGETHER = 'Archives the ledger and exports each invoice.';
const BOOKS = { name: 'books', description: 'Bookkeeping' };
const OTHERS = ['Sends a reminder to a customer.', 'Lists the payments received this month.', 'Creates a customer record.'].map((text, at) => ({ server: 'books', tool: tool(`other_${at}`, text) }));

describe('the query\'s two most specific words in one passage', () => {
  it('the tool that says them in one sentence ranks first, though the other sorts first on a tie', () => {
    const search = new ToolSearch([BOOKS], [...OTHERS, { server: 'books', tool: tool('alpha_store', APART) }, { server: 'books', tool: tool('bravo_store', TOGETHER) }]);
    expect(top(search, 'ledger invoice')).toEqual(['bravo_store', 'alpha_store']);
  });

  it('follows a server re-indexed: the passages of its old tools are gone', () => {
    const search = new ToolSearch([BOOKS], [...OTHERS, { server: 'books', tool: tool('alpha_store', TOGETHER) }, { server: 'books', tool: tool('bravo_store', APART) }]);
    search.setServer(BOOKS, [...OTHERS.map(({ tool }) => tool), tool('alpha_store', APART), tool('bravo_store', TOGETHER)]);
    expect(top(search, 'ledger invoice')).toEqual(['bravo_store', 'alpha_store']);
  });
});

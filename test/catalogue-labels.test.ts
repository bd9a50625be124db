/**
 * The labelled query sets of the search benchmark: a label that names no captured tool can never be
 * found, so a typo in a set would silently lower its recall instead of failing.
 */
import { describe, expect, it } from 'vitest';
import { QUERY_SETS, catalogueServers, labelledQueries } from '../bench/catalogue/catalogue.js';

const catalogueTools = new Set(catalogueServers().flatMap(({ name, tools }) => tools.map((tool) => `${name}/${tool.name}`)));

describe.each(QUERY_SETS)('the %s query set', (set) => {
  const queries = labelledQueries(set);

  it('labels every query with at least one tool', () => {
    expect(queries.filter(({ relevant }) => relevant.length === 0)).toEqual([]);
  });

  it('names only tools that are in the captured catalogue', () => {
    const unknown = queries.flatMap(({ query, relevant }) => relevant.filter((label) => !catalogueTools.has(label)).map((label) => `${query} -> ${label}`));
    expect(unknown).toEqual([]);
  });

  it('asks each query once', () => {
    const texts = queries.map(({ query }) => query.toLowerCase());
    expect(texts.length - new Set(texts).size).toBe(0);
  });
});

// Each held-out set after the first was written blind: none of its queries may be copied from a set before it.
describe.each(QUERY_SETS.slice(QUERY_SETS.indexOf('held-out-2')))('the %s held-out set', (set) => {
  it('has 70 queries, none of them copied from the earlier sets', () => {
    const queries = labelledQueries(set);
    const earlier = new Set(QUERY_SETS.slice(0, QUERY_SETS.indexOf(set)).flatMap((before) => labelledQueries(before).map(({ query }) => query.toLowerCase())));
    expect(queries).toHaveLength(70);
    expect(queries.filter(({ query }) => earlier.has(query.toLowerCase())).map(({ query }) => query)).toEqual([]);
  });
});

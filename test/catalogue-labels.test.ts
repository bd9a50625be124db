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

it('the second held-out set has 70 queries, none of them copied from the earlier sets', () => {
  const heldOutTwo = labelledQueries('held-out-2');
  const earlier = new Set([...labelledQueries('dev'), ...labelledQueries('held-out')].map(({ query }) => query.toLowerCase()));
  expect(heldOutTwo).toHaveLength(70);
  expect(heldOutTwo.filter(({ query }) => earlier.has(query.toLowerCase())).map(({ query }) => query)).toEqual([]);
});

it('the third held-out set has 70 queries, none of them copied from the earlier sets', () => {
  const heldOutThree = labelledQueries('held-out-3');
  const earlier = new Set([...labelledQueries('dev'), ...labelledQueries('held-out'), ...labelledQueries('held-out-2')].map(({ query }) => query.toLowerCase()));
  expect(heldOutThree).toHaveLength(70);
  expect(heldOutThree.filter(({ query }) => earlier.has(query.toLowerCase())).map(({ query }) => query)).toEqual([]);
});

it('the fourth held-out set has 70 queries, none of them copied from the earlier sets', () => {
  const heldOutFour = labelledQueries('held-out-4');
  const earlier = new Set(
    [...labelledQueries('dev'), ...labelledQueries('held-out'), ...labelledQueries('held-out-2'), ...labelledQueries('held-out-3')].map(({ query }) => query.toLowerCase()),
  );
  expect(heldOutFour).toHaveLength(70);
  expect(heldOutFour.filter(({ query }) => earlier.has(query.toLowerCase())).map(({ query }) => query)).toEqual([]);
});

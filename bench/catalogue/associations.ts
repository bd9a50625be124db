/**
 * Learns word associations (Associations in src/search/tool-search.ts) from labelled queries over
 * the catalogue, after Berger and Lafferty's translation model for retrieval: a query word goes
 * with a word of the wanted tools' names, titles and descriptions when at least `minSupport`
 * different training queries that say it wanted a tool that says the other word, and more often
 * than the training queries at large did (pointwise mutual information, `minPmi`).
 *
 * Only sets tuned on may be learned from: a blind set learned from would be one more set tuned on.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { Associations } from '../../src/search/tool-search.js';
import { identifierTokens, textTokens } from '../../src/search/index.js';
import { catalogueServers, labelledQueries, QUERY_SET_HISTORY, type QuerySet } from './catalogue.js';

export interface LearningOptions {
  /** Different training queries a pair must be seen in. */
  minSupport: number;
  /** The least pointwise mutual information (natural log) a pair must have. */
  minPmi: number;
  /** Associated words kept per query word, strongest first. */
  perWord: number;
}

/** The setting that did best in the ninth round's cross-validation (BENCHMARKS.md §7), chosen on the same folds. */
export const LEARNING: LearningOptions = { minSupport: 2, minPmi: 1.6, perWord: 2 };

/** A word with a digit is a value (a phone number, an issue number, an ID), not vocabulary: never associated. */
const isWord = (word: string) => !/\d/.test(word);

function toolWords(tool: Tool): Set<string> {
  return new Set([...identifierTokens(tool.name), ...textTokens(tool.title ?? tool.annotations?.title ?? ''), ...textTokens(tool.description ?? '')]);
}

/** The sets' queries, each as its distinct words and the words of the tools it wants; a set never tuned on is refused. */
export function trainingPairs(sets: readonly QuerySet[]): Array<{ query: Set<string>; tools: Set<string> }> {
  for (const set of sets) {
    if (!QUERY_SET_HISTORY[set].tunedOn) throw new Error(`associations are learned from sets tuned on only, not ${set}`);
  }
  const tools = new Map<string, Tool>();
  for (const server of catalogueServers()) for (const tool of server.tools) tools.set(`${server.name}/${tool.name}`, tool);
  return sets.flatMap((set) =>
    labelledQueries(set).map(({ query, relevant }) => ({
      query: new Set(textTokens(query).filter(isWord)),
      tools: new Set(relevant.flatMap((name) => [...toolWords(tools.get(name)!)]).filter(isWord)),
    })),
  );
}

/** The associations the sets' queries teach; strength is the pair's share of the queries saying the word, smoothed by one. */
export function learnAssociations(sets: readonly QuerySet[], options: LearningOptions = LEARNING): Associations {
  const pairs = trainingPairs(sets);
  const saying = new Map<string, number>();
  const wanting = new Map<string, number>();
  const together = new Map<string, Map<string, number>>();
  for (const { query, tools } of pairs) {
    for (const word of query) saying.set(word, (saying.get(word) ?? 0) + 1);
    for (const word of tools) wanting.set(word, (wanting.get(word) ?? 0) + 1);
    for (const word of query) {
      let others = together.get(word);
      if (!others) together.set(word, (others = new Map()));
      for (const other of tools) if (other !== word) others.set(other, (others.get(other) ?? 0) + 1);
    }
  }
  const associations = new Map<string, Array<[string, number]>>();
  for (const [word, others] of together) {
    const said = saying.get(word)!;
    const kept = [...others]
      .filter(([other, count]) => count >= options.minSupport && Math.log((count * pairs.length) / (said * wanting.get(other)!)) >= options.minPmi)
      .map(([other, count]): [string, number] => [other, count / (said + 1)])
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, options.perWord);
    if (kept.length > 0) associations.set(word, kept);
  }
  return associations;
}

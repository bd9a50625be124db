/**
 * The captured catalogue (servers.json, written by refresh.ts) and the labelled queries over it
 * (queries-dev.json, queries-held-out.json, queries-held-out-2.json, queries-held-out-3.json, queries-held-out-4.json,
 * queries-held-out-5.json, queries-held-out-6.json, queries-held-out-7.json, queries-held-out-8.json,
 * queries-held-out-9.json, queries-held-out-10.json, queries-held-out-11.json,
 * queries-held-out-12.json, queries-held-out-13.json, queries-held-out-14.json, queries-held-out-15.json), for the search
 * benchmark and tests.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { BENCH_DIR } from '../lib/paths.js';

// From the repository root: the bench runs this file bundled into bench/.cache/build.
const HERE = path.join(BENCH_DIR, 'catalogue');

export interface CatalogueServer {
  name: string;
  /** What a user would write as the server's description in a config: the package's own. */
  description: string;
  instructions?: string;
  tools: Tool[];
}

export interface LabelledQuery {
  query: string;
  /** `server/tool` names that answer it; found at k when one of them is among the first k. */
  relevant: string[];
}

interface CapturedFile {
  servers: Array<{ name: string; package: string; version: string; description: string; instructions?: string; tools: Tool[] }>;
}

let captured: CapturedFile | undefined;

function capturedFile(): CapturedFile {
  captured ??= JSON.parse(readFileSync(path.join(HERE, 'servers.json'), 'utf8')) as CapturedFile;
  return captured;
}

/** The captured servers; with `copy` > 0 under names of their own (`github~3`), to grow the catalogue for latency. */
export function catalogueServers(copy = 0): CatalogueServer[] {
  return capturedFile().servers.map(({ name, description, instructions, tools }) => ({
    name: copy === 0 ? name : `${name}~${copy}`,
    description,
    ...(instructions ? { instructions } : {}),
    tools,
  }));
}

/** The catalogue copied under new names until it holds `tools` tools. */
export function largeCatalogue(tools: number): CatalogueServer[] {
  const servers: CatalogueServer[] = [];
  let count = 0;
  for (let copy = 0; count < tools; copy++) {
    for (const server of catalogueServers(copy)) {
      if (count >= tools) break;
      const kept = server.tools.slice(0, tools - count);
      servers.push({ ...server, tools: kept });
      count += kept.length;
    }
  }
  return servers;
}

export function catalogueSummary(): Array<{ name: string; package: string; version: string; tools: number }> {
  return capturedFile().servers.map(({ name, package: packageName, version, tools }) => ({ name, package: packageName, version, tools: tools.length }));
}

export const QUERY_SETS = ['dev', 'held-out', 'held-out-2', 'held-out-3', 'held-out-4', 'held-out-5', 'held-out-6', 'held-out-7', 'held-out-8', 'held-out-9', 'held-out-10', 'held-out-11', 'held-out-12', 'held-out-13', 'held-out-14', 'held-out-15'] as const;
export type QuerySet = (typeof QUERY_SETS)[number];

/**
 * Whether each set was tuned on, and how it came to be: the bench lists the misses of sets tuned on
 * only (a blind set's misses, once read, would make it one more set tuned on) and checks the recall
 * targets on the last set never tuned on.
 */
export const QUERY_SET_HISTORY: Readonly<Record<QuerySet, { tunedOn: boolean; description: string }>> = {
  dev: { tunedOn: true, description: 'development queries (tuned on since the first round)' },
  'held-out': { tunedOn: true, description: 'first held-out queries (tuned on since the fifth round)' },
  'held-out-2': { tunedOn: true, description: 'second held-out queries, written blind (tuned on since the sixth round)' },
  'held-out-3': { tunedOn: true, description: 'third held-out queries, written blind (tuned on since the seventh round)' },
  'held-out-4': { tunedOn: true, description: 'fourth held-out queries, written blind (tuned on since the eighth round)' },
  'held-out-5': { tunedOn: true, description: 'fifth held-out queries, written blind (tuned on since the tenth round)' },
  'held-out-6': { tunedOn: true, description: 'sixth held-out queries, written blind (tuned on since the eleventh round)' },
  'held-out-7': { tunedOn: true, description: 'seventh held-out queries, written blind (tuned on since the twelfth round)' },
  'held-out-8': { tunedOn: true, description: 'eighth held-out queries, written blind (tuned on since the thirteenth round)' },
  'held-out-9': { tunedOn: true, description: 'ninth held-out queries, written blind (tuned on since the fifteenth round)' },
  'held-out-10': { tunedOn: true, description: 'tenth held-out queries, written blind (tuned on since the eighteenth round)' },
  'held-out-11': { tunedOn: true, description: 'eleventh held-out queries, written blind (tuned on since the nineteenth round)' },
  'held-out-12': { tunedOn: true, description: 'twelfth held-out queries, written blind (tuned on since the twenty-first round)' },
  'held-out-13': { tunedOn: true, description: 'thirteenth held-out queries, written blind (tuned on since the twenty-third round)' },
  'held-out-14': { tunedOn: true, description: 'fourteenth held-out queries, written blind (tuned on since the twenty-sixth round)' },
  'held-out-15': { tunedOn: false, description: 'fifteenth held-out queries, written blind, never tuned on' },
};

export function isQuerySet(name: string | undefined): name is QuerySet {
  return QUERY_SETS.some((set) => set === name);
}

export function labelledQueries(set: QuerySet): LabelledQuery[] {
  return JSON.parse(readFileSync(path.join(HERE, `queries-${set}.json`), 'utf8')) as LabelledQuery[];
}

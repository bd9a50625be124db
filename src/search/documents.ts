/**
 * What a tool and a server say about themselves, as fields of words for the ranking: the tool's
 * name split into words, its title, description, parameters (names and descriptions), the few values
 * a parameter lists, annotations, and its server's name and purpose (description, title, instructions). Each field
 * keeps at most MAX_FIELD_TOKENS words, so no manifest can make indexing slow.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { FieldSpec } from './field-index.js';
import { shippedThesaurus } from './thesaurus.js';
import { identifierTokens, isUnspaced, textTokens } from './tokenize.js';

export interface SearchableServer {
  name: string;
  /** The configured description: what the server is for, in the user's words. */
  description?: string;
  /** What the server said of itself in `initialize`, when it is known. */
  title?: string;
  instructions?: string;
}

const MAX_FIELD_TOKENS = 300;

/** The tool fields in order: the weights are where "a word in the name counts more" is decided. */
export const TOOL_FIELDS: readonly FieldSpec[] = [
  { weight: 3, b: 0.3 }, // tool name
  { weight: 2, b: 0.3 }, // title
  { weight: 1, b: 0.75 }, // description
  // What a tool takes, not what it does: its parameters' words say little of which tool a query wants
  // (0.05-0.2 did better than 0.4 on both the development and the first held-out set; 0 did worse).
  // b 0.75 until the twelfth round's re-fit over eight sets (BENCHMARKS §7).
  { weight: 0.15, b: 0.6 }, // parameter names and descriptions
  { weight: 0.5, b: 0 }, // annotations
  { weight: 3, b: 0 }, // server name
  { weight: 0.6, b: 0.75 }, // server purpose
  // WordNet's synonyms and derived forms of the name's words (nameRelatedTokens): 0.1 from the seventh
  // round, 0.14 re-fit in the twelfth over eight sets with every weight (BENCHMARKS §7).
  { weight: 0.14, b: 0.3 }, // the name's WordNet words
  // The values a parameter offers when it offers few (listedValueTokens): the twenty-third round over
  // fourteen sets, 0.05 / 0.15 × b 0 / 0.6 × every list or lists of at most eight (BENCHMARKS §7).
  { weight: 0.15, b: 0 }, // listed parameter values
];

export const SERVER_FIELDS: readonly FieldSpec[] = [
  { weight: 3, b: 0 }, // server name
  { weight: 1, b: 0.75 }, // purpose: description, title, instructions
  { weight: 0.5, b: 0.75 }, // its tools' names
];

/**
 * A server's whole text as one field: its name and purpose and every tool's name and description.
 * A query about what a server is for meets it there when the one tool it wants does not say the word.
 */
export const SERVER_TEXT_FIELDS: readonly FieldSpec[] = [{ weight: 1, b: 0.75 }];

/**
 * The first MAX_FIELD_TOKENS words and the emoji and CJK pairs among them, which count in no
 * field's length (spacedLength) and so in no cap: counted, hubspot's "🎯 Purpose:" headings cut
 * words off its long descriptions. Never more than twice the cap, whatever a text holds.
 */
function capped(tokens: string[]): string[] {
  if (tokens.length <= MAX_FIELD_TOKENS) return tokens;
  let words = 0;
  const end = Math.min(tokens.length, 2 * MAX_FIELD_TOKENS);
  for (let at = 0; at < end; at++) {
    if (!isUnspaced(tokens[at]!) && ++words > MAX_FIELD_TOKENS) return tokens.slice(0, at);
  }
  return tokens.slice(0, end);
}

/** Adjacent word pairs: "pull request" in a description answers "open a pull request" better than "pull" and "request" apart. */
export function wordPairs(tokens: readonly string[]): string[] {
  const pairs: string[] = [];
  for (let at = 1; at < tokens.length; at++) pairs.push(`${tokens[at - 1]} ${tokens[at]}`);
  return pairs;
}

function parameterTokens(tool: Tool): string[] {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const tokens: string[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    tokens.push(...identifierTokens(name));
    const description = (schema as { description?: unknown } | null)?.description;
    if (typeof description === 'string') tokens.push(...textTokens(description));
    if (tokens.length >= MAX_FIELD_TOKENS) break;
  }
  return tokens;
}

/**
 * A short `enum` is a switch between what a tool does: github's review `event` APPROVE /
 * REQUEST_CHANGES / COMMENT, kubernetes' node `operation` cordon / drain / uncordon. A long one
 * (languages, time zones, a hundred statuses) is data, not a choice of action, and is left out.
 */
const MAX_LISTED_VALUES = 8;

function listedValueTokens(tool: Tool): string[] {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const tokens: string[] = [];
  for (const schema of Object.values(properties)) {
    const { enum: values, items } = (schema ?? {}) as { enum?: unknown; items?: { enum?: unknown } | null };
    const listed = Array.isArray(values) ? values : Array.isArray(items?.enum) ? items.enum : [];
    if (listed.length > MAX_LISTED_VALUES) continue;
    for (const value of listed) if (typeof value === 'string') tokens.push(...identifierTokens(value));
  }
  return capped(tokens);
}

function annotationTokens(tool: Tool): string[] {
  const hints = tool.annotations;
  if (!hints) return [];
  return [...(hints.readOnlyHint === true ? ['read', 'only'] : []), ...(hints.destructiveHint === true && hints.readOnlyHint !== true ? ['destructive'] : [])];
}

export function serverPurpose(server: SearchableServer): string {
  return [server.description, server.title, server.instructions].filter(Boolean).join(' ');
}

/**
 * The words WordNet gives as synonyms or derived forms of a tool name's words (first sense), the
 * name's own words left out: `linear_createIssue` also says "make", "publish", "release"; the
 * query side reaches such words only at a tenth of a typed word, and only from the query's words.
 */
export function nameRelatedTokens(name: readonly string[]): string[] {
  const related = new Set<string>();
  const thesaurus = shippedThesaurus();
  for (const word of name) {
    const { synonym, derived } = thesaurus.related(word);
    for (const other of [...synonym, ...derived]) if (!name.includes(other)) related.add(other);
  }
  return [...related];
}

/**
 * A tool's texts as written, each apart (its name, title and description as in `fields`, each
 * parameter's description): where word contexts (word-contexts.ts) are counted.
 */
export function toolTexts(tool: Tool, fields: readonly string[][]): string[][] {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  const parameters = typeof properties === 'object' && properties !== null ? Object.values(properties) : [];
  const described = parameters.map((schema) => (schema as { description?: unknown } | null)?.description).filter((text): text is string => typeof text === 'string');
  return [fields[0]!, fields[1]!, fields[2]!, ...described.map((text) => capped(textTokens(text)))];
}

/**
 * A tool's passages, from the fields toolDocument made: its name and title together, each sentence
 * of its description, its parameters (names and descriptions) together.
 */
export function toolPassages(tool: Tool, fields: readonly string[][]): string[][] {
  const sentences = (tool.description ?? '').split(/(?<=[.!?])\s+|\n+/).map(textTokens);
  return [[...fields[0]!, ...fields[1]!], ...sentences.filter((words) => words.length > 0), fields[3]!].filter((words) => words.length > 0);
}

/** A tool's fields and the word pairs of its name, title and description. */
export function toolDocument(tool: Tool, serverNameTokens: string[], purposeTokens: string[]): { fields: string[][]; pairs: string[][] } {
  const name = identifierTokens(tool.name);
  const title = capped(textTokens(tool.title ?? tool.annotations?.title ?? ''));
  const description = capped(textTokens(tool.description ?? ''));
  return {
    fields: [name, title, description, parameterTokens(tool), annotationTokens(tool), serverNameTokens, purposeTokens, nameRelatedTokens(name), listedValueTokens(tool)],
    pairs: [wordPairs(name), wordPairs(title), wordPairs(description)],
  };
}

export function serverDocument(server: SearchableServer, tools: readonly Tool[]): string[][] {
  return [
    identifierTokens(server.name),
    capped(textTokens(serverPurpose(server))),
    capped(tools.flatMap((tool) => identifierTokens(tool.name))),
  ];
}

/** The server's whole text (SERVER_TEXT_FIELDS) from its name, purpose and its tools' name and description words (the first and third of toolDocument's fields, as of toolTexts'). */
export function serverTextDocument(nameTokens: readonly string[], purposeTokens: readonly string[], toolFields: ReadonlyArray<readonly string[][]>): string[][] {
  return [[...nameTokens, ...purposeTokens, ...toolFields.flatMap((fields) => [...fields[0]!, ...fields[2]!])]];
}

export const serverPurposeTokens = (server: SearchableServer): string[] => capped(textTokens(serverPurpose(server)));

/** Characters of a tool's text given to an embedding function at most. */
const EMBEDDED_TEXT_LIMIT = 1_000;

/** What the semantic stage embeds for a tool: its server, name or title, and description. */
export function embeddingText(server: string, tool: Tool): string {
  return `${server}: ${tool.title ?? tool.annotations?.title ?? tool.name}. ${tool.description ?? ''}`.slice(0, EMBEDDED_TEXT_LIMIT);
}

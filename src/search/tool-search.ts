/**
 * Ranking tools (and servers) by relevance to a natural-language query, over BM25F fields (see
 * documents.ts): the tool's own words weigh most, its server's name and purpose tell apart two
 * servers' `create_issue` ("in our GitLab") and answer words only the server uses ("remember" →
 * the memory server). Adjacent query words found adjacent in a tool add a phrase bonus. A query
 * that is exactly a tool's name (or `server/tool`) puts that tool first whatever the words say.
 *
 * Servers come and go one at a time (`setServer`, `removeServer`): a change re-indexes that
 * server's tools only.
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import { serverDocument, serverPurposeTokens, serverTextDocument, SERVER_FIELDS, SERVER_TEXT_FIELDS, toolDocument, TOOL_FIELDS, toolPassages, toolTexts, wordPairs, type SearchableServer } from './documents.js';
import { FieldIndex, ScoreSheet, type FieldTokens, type QueryGroup } from './field-index.js';
import { Passages } from './passages.js';
import { synonymsOf } from './synonyms.js';
import { shippedThesaurus, THESAURUS_RELATIONS, type ThesaurusRelation } from './thesaurus.js';
import { cosine } from './vector-store.js';
import { foldedName, identifierTokens, splitWords, stem, textTokens } from './tokenize.js';
import { WordContexts } from './word-contexts.js';
import { exampleShapes, queryShapes, queryValues, requiredKinds, suppliedShare, withUrlsAsHosts, type ValueKind } from './values.js';

export type { SearchableServer } from './documents.js';

export interface SearchableTool {
  server: string;
  tool: Tool;
}

export interface RankedTool extends SearchableTool {
  score: number;
}

/**
 * A query word's hand synonyms count this much of the word itself. 0.35 until the twelfth round,
 * re-fit then over eight sets with every weight (BENCHMARKS §7): alone, 0.6-0.8 gained 19-25 queries
 * at 1 plus in five over the eight, 0.7 the most; 0.9 and over lost places at 1.
 */
const SYNONYM_WEIGHT = 0.7;
/** Two query words found next to each other count this much on top of the words alone. */
const PAIR_WEIGHT = 0.5;
/** How much a question's reading verbs count, on top of its words. */
const QUESTION_WEIGHT = 0.5;
/** How much a tool whose every name word the query says gains over one whose name it does not touch. */
const NAME_COVERAGE_WEIGHT = 0.5;
/** How much the tools of a server the query names for sure gain: 1 until the twelfth round's re-fit over eight sets (BENCHMARKS §7). */
const SERVER_MENTION_WEIGHT = 0.5;
/** How much a tool that can change something gains over one that only reads, when the query asks for a change ("add a comment"). */
const ACTION_WEIGHT = 0.5;
/**
 * How much a tool that only reads gains over one that changes something, when the query is a
 * question ("what fields does the Inventory table have": describe_table, not create_table). Eighth
 * round, five query sets tuned on: 0.2. Re-fit in the twelfth round over eight sets with every
 * weight, BENCHMARKS §7: 0.4.
 */
const QUESTION_READ_WEIGHT = 0.4;
/**
 * How much a tool that removes something (a removing verb in its name: delete_relations) loses
 * against the others when the query asks to remove nothing (no removing verb among its words or
 * their related words): "remember that my sister is allergic to peanuts" wants the memory server's
 * create_entities, not its delete_relations. Eighth round, five query sets tuned on: 0.25-1 the
 * same (the second held-out set +1 query in five, the second, third and fourth better ranked, none
 * lower), 0.1 nothing; 0.5.
 */
const UNASKED_REMOVAL_PENALTY = 0.5;
/** How much a tool whose every required parameter the query's values fill (a URL for `url`, two numbers for `a` and `b`) gains: 0.25-2 all helped the three folds, 0.5 the most on the blind second set. */
const VALUE_WEIGHT = 0.5;
/**
 * How much the tools of the server whose whole text matches the query best gain, other servers'
 * tools in proportion to their server's score (smoothing a tool by its cluster, as in classical IR):
 * "the current sprint" reaches the tracker's tools though the one wanted says "cycle". 0.1-1.5 all
 * raised or kept every fold; 0.5 in the middle.
 */
const SERVER_TEXT_WEIGHT = 0.5;
/**
 * A tool whose required parameters take the query's values gains this share of the best word score
 * even when it shares no word with the query ("text +15551234567 that…": Twilio's CreateMessage says
 * "send a message"), in proportion to the share of them the values fill. Values specific enough to
 * find a tool by: a URL or host name, an e-mail address, a phone number, a #channel (with file paths
 * and numbers too, dev lost a query at 1). Numbers and paths find a tool only when they fill every
 * one of its two or more required parameters, all of those kinds ("what's 3.5 plus 8" → get-sum, two
 * coordinates → reverse geocoding). Seventh round, four query sets tuned on: the specific values at
 * 0.1-0.5 kept or raised every set (0.75 cost one at 1, 1-1.5 did not), 0.3 first; the numbers and
 * paths then at 0.1-2 (0.5-2 the most); one weight for both, 0.5.
 */
const VALUE_RECALL_WEIGHT = 0.5;
/**
 * A tool one of whose parameters gives an example value (quoted, or after "e.g." / "such as" /
 * "like" / "format") of the form of a query's token gains this share of the best word score: "PAY-2291"
 * reaches linear_getIssueById, whose `id` says "e.g., ABC-123". Twenty-second round, thirteen sets
 * tuned on: 0.25 / 0.5 × forms with or without run lengths × required or any parameter; 0.25,
 * without lengths, any parameter gained the most (+3 first, +1 in five), each set left out +2 / +1.
 */
const VALUE_SHAPE_WEIGHT = 0.25;
const RECALLING_KINDS: ReadonlySet<ValueKind> = new Set(['url', 'email', 'phone', 'channel']);
const COMMON_KINDS: ReadonlySet<ValueKind> = new Set(['number', 'path']);
// A query asks for a change or is a question, not both: one of the two action lifts at most.
const MAX_LIFT = (1 + NAME_COVERAGE_WEIGHT) * (1 + SERVER_MENTION_WEIGHT) * (1 + Math.max(ACTION_WEIGHT, QUESTION_READ_WEIGHT)) * (1 + VALUE_WEIGHT) * (1 + SERVER_TEXT_WEIGHT);
/**
 * A tool one passage of which (its name and title, one sentence of its description, its
 * parameters: documents.ts) holds the query's two most specific words (those the fewest tools hold)
 * gains this share: the two words meet in what one sentence says, not scattered over a long text.
 * Thirty-third round, fifteen sets tuned on, BENCHMARKS.md §7: 0.05-0.25 each gained 2-4 at 1 and
 * lowered no set in five; a passage's BM25F score added to the tool's lost at 1 at every weight.
 */
const SPECIFIC_PAIR_WEIGHT = 0.1;
/** Above any BM25F score: an exact name wins. */
const EXACT_NAME_SCORE = 1e9;
/** Reciprocal rank fusion: the usual constant, and how deep into each list it looks. */
const RRF_K = 60;
const FUSION_DEPTH = 100;
/**
 * After the fusion, the first result's server's tools among the first SIBLING_WINDOW are put back
 * into their places ordered by their words' score over the best of theirs plus SIBLING_MEANING_WEIGHT
 * times their similarity to the query: most misses at 1 are another tool of the right server, and
 * among a few siblings a near tie of words is settled by meaning while a clear lead of words stands.
 * Thirty-sixth round, fifteen sets tuned on, Universal Sentence Encoder lite, BENCHMARKS.md §7:
 * +5 at 1 and none lost in five at 0.2 and a window of 5; ordering them by similarity alone lost 83 at 1.
 */
const SIBLING_WINDOW = 5;
const SIBLING_MEANING_WEIGHT = 0.2;


interface IndexedServer {
  server: SearchableServer;
  /** A copy of the list setServer was given: its caller may change its own array after. */
  tools: readonly Tool[];
  /** Each tool's document, in the order of `tools`. */
  docs: number[];
  /** Its purpose's words, in each of its tools' fields: when they change, every tool is indexed again. */
  purpose: readonly string[];
  serverDoc: number;
  /** The words of its server-level entries as indexed: a change that leaves them the same keeps them (and the cached scores of their words). */
  serverFields: string[][];
  serverTextFields: string[][];
  serverTextDoc: number;
  /** Its name's words and the words at least half its tools' names hold: they say the server, not which of its tools. */
  sharedNameWords: ReadonlySet<string>;
}

/** What setServer keeps of a server's tools: per tool of the new list, the document it keeps (or undefined); all those documents. */
interface KeptTools {
  docs: ReadonlyArray<number | undefined>;
  kept: ReadonlySet<number>;
}

const NONE_KEPT: KeptTools = { docs: [], kept: new Set() };

/** The tools of every server that list one name and description, and how many of them name their own server. */
interface Twins {
  key: string;
  docs: Set<number>;
  naming: number;
}
/** The tools of a group that do not name their server while another does. */
const impersonatorsIn = ({ docs, naming }: Twins) => (naming > 0 ? docs.size - naming : 0);
/**
 * A tool's definition as indexed, in 44 characters: its JSON's SHA-256 (the JSON itself, 1.5 KB a
 * tool, added 19 MB to the index at 10,000 tools; a deep copy would cost more).
 */
const fingerprint = (tool: Tool) => createHash('sha256').update(JSON.stringify(tool)).digest('base64');
const twinKey = (tool: Tool) => `${tool.name}\u0000${tool.description ?? ''}`;
/** Whether a description names the server by a word of its name of three letters or more, as written ("GitHub" for `github`, not "git" and "hub"). */
function namesServer(description: string, server: string): boolean {
  const words = ` ${description.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
  return server
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .some((word) => word.length >= 3 && words.includes(` ${word} `));
}
/** How far below its twin an impersonating tool's score is put: below it, and above anything that was below both. */
const TWIN_BELOW = 1 - 1e-9;
const sameWords = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((word, at) => word === b[at]);
const sameFields = (a: FieldTokens, b: FieldTokens) => a.length === b.length && a.every((words, field) => sameWords(words, b[field]!));

/** The words `index` holds with ё where `word` has е, and ё wherever `word` has it. */
function withYo(index: FieldIndex, word: string): string[] {
  const held = [...index.wordsWithYo(word.replace(/ё/g, 'е'))];
  return word.includes('ё') ? held.filter((spelled) => word.split('').every((letter, at) => letter !== 'ё' || spelled[at] === 'ё')) : held;
}

export interface ParsedQuery {
  groups: QueryGroup[];
  pairs: QueryGroup[];
}

/**
 * WordNet's related words count this much of the query word, by relation: the largest weights
 * that left the development set as it was (synonyms or derived forms at 0.15–0.2 cost a query at 1).
 * Broader words (seventh round): alone, every weight from 0.01 to 0.2 kept or raised all four query
 * sets tuned on; with the name's WordNet field (documents.ts), 0.03-0.08 did, 0.06-0.08 the most,
 * and 0.1 cost the second held-out set a query at 1: 0.07. Narrower words (0.05 since the fourth
 * round) then: 0.06-0.2 each raised the third held-out set by a query at 1 and lowered none: 0.1.
 */
const THESAURUS_WEIGHTS: Readonly<Record<ThesaurusRelation, number>> = { synonym: 0.1, derived: 0.1, narrower: 0.1, broader: 0.07 };
const BY_WEIGHT = [...THESAURUS_RELATIONS].sort((a, b) => THESAURUS_WEIGHTS[b] - THESAURUS_WEIGHTS[a]);
/** WordNet words added at most per query word, and per query: a long query cannot make a long search. */
export const THESAURUS_PER_WORD = 12;
export const THESAURUS_PER_QUERY = 48;
/**
 * Word associations learned from labelled queries (bench/catalogue/associations.ts): for a query
 * word, words of the tools people who said it wanted ("remember" → "graph", "knowledge"), each with
 * a strength in (0, 1]. Off unless given (ToolSearch's `associations`): a ninth-round experiment,
 * BENCHMARKS.md §7.
 */
export type Associations = ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>;
const NO_ASSOCIATIONS: Associations = new Map();
/** Where parseQuery finds a word's expansions: learned associations, the catalogue's co-occurrences. */
export type Expansions = Pick<Associations, 'get'>;
/** A learned association counts this much of the query word, times its strength. */
export const ASSOCIATION_WEIGHT = 1;

/**
 * Words that go together in the user's own catalogue, read off the tools indexed and no query (a
 * pseudo-relevance feedback over the catalogue, not over a query's results): a query word held by 2
 * to CO_OCCURRENCE_MAX_HOLDERS tools (in their name, title, description or parameters) reaches the
 * CO_OCCURRENCE_PER_WORD words that most of those tools have in their *names*, each in at least 2 of
 * their names and over e^2.5 times more often among them than in the catalogue at large (pointwise
 * mutual information), at CO_OCCURRENCE_WEIGHT × (the share of the word's tools naming it) ×
 * min(1, PMI / 4): "spreadsheet" in the descriptions of two ledger tools reaches a third tool named
 * for the ledger. Tenth round, six query sets tuned on, BENCHMARKS.md §7: the names' words only (all
 * of the tools' words lowered a set at 1); weight and PMI picked with each set left out.
 */
const CO_OCCURRENCE_WEIGHT = 0.75;
const CO_OCCURRENCE_MAX_HOLDERS = 30;
const CO_OCCURRENCE_PER_WORD = 3;
const CO_OCCURRENCE_MIN_PMI = 2.5;
const MAX_CACHED_WORDS = 10_000;
/**
 * A query word few tools hold (1 to RARE_WORD_MAX_HOLDERS, in their own fields) also reaches the
 * RARE_WORD_NEIGHBOURS words the catalogue uses most like it (word-contexts.ts: the same words
 * around them), each held by two tools or more, at RARE_WORD_NEIGHBOUR_WEIGHT × their cosine:
 * "pet" beside airbnb's "adults" and "infants". Twenty-fifth round, fourteen query sets tuned on,
 * BENCHMARKS.md §7: a grid of 1-2 / 1-8 holders × 2 / 5 words × 0.1 / 0.3 / 0.6, each set left out
 * +1 first, +1 in five.
 */
const RARE_WORD_MAX_HOLDERS = 2;
const RARE_WORD_NEIGHBOURS = 5;
const RARE_WORD_NEIGHBOUR_WEIGHT = 0.6;
/** A tool's own fields in TOOL_FIELDS: name, title, description, parameters. */
const OWN_FIELDS = [0, 1, 2, 3];

/**
 * One group per query word (the word at weight 1, its synonyms lower), and the pairs of adjacent
 * words. A hand synonym the query says itself stays out of the other word's group: "add a row to
 * the table" counts "table" once, in its own group, not again as a synonym of "row" (eighth round:
 * +1 query in five on the second and third held-out sets, none lower; WordNet's words left out the
 * same way cost the first held-out set one at 1). WordNet's related words join a group only when
 * `known` (the index holds them), within the per-word and per-query bounds. A word no tool holds
 * takes in its group the words tools hold that it begins (`wholeWordsOf`: "coords", coordinates).
 * A Russian word written with е takes in its group, at full weight, the words held that write ё
 * where it writes е (`withYo`: "еж", ёж), as Russian writers often leave ё's dots off; a word
 * written with ё finds only ё.
 */
export function parseQuery(
  query: string,
  known: (term: string) => boolean = () => true,
  associations: Expansions = NO_ASSOCIATIONS,
  wholeWordsOf: (start: string) => ReadonlyArray<readonly [string, number]> = () => [],
  withYo: (word: string) => Iterable<string> = () => [],
): ParsedQuery {
  const words = textTokens(withUrlsAsHosts(query));
  const said = new Set(words);
  let thesaurusLeft = THESAURUS_PER_QUERY;
  const groups = [...said].map((token) => {
    const group = new Map<string, number>([[token, 1]]);
    if (token.includes('е')) for (const spelled of withYo(token)) if (!said.has(spelled)) group.set(spelled, 1);
    if (!known(token)) for (const [whole, weight] of wholeWordsOf(token)) if (!said.has(whole)) group.set(whole, weight);
    for (const synonym of synonymsOf(token)) if (!group.has(synonym) && !said.has(synonym)) group.set(synonym, SYNONYM_WEIGHT);
    for (const [other, strength] of associations.get(token) ?? []) if (!group.has(other) && !said.has(other) && known(other)) group.set(other, ASSOCIATION_WEIGHT * strength);
    const related = shippedThesaurus().related(token);
    let wordLeft = THESAURUS_PER_WORD;
    for (const relation of BY_WEIGHT) {
      for (const other of related[relation]) {
        if (wordLeft === 0 || thesaurusLeft === 0) return group;
        if (group.has(other) || !known(other)) continue;
        group.set(other, THESAURUS_WEIGHTS[relation]);
        wordLeft--;
        thesaurusLeft--;
      }
    }
    return group;
  });
  const pairsSaid = new Set(wordPairs(words));
  for (const parts of compounds(query, known)) {
    for (const part of parts) if (!said.has(part)) groups.push(new Map([[part, 1]]));
    parts.forEach((part) => said.add(part));
    pairsSaid.add(`${parts[0]} ${parts[1]}`);
  }
  // "package.json" or "report.pdf" is a file, though the query may not say the word.
  if (FILE_NAME_WITH_EXTENSION.test(query) && !words.includes(FILE_WORD)) groups.push(new Map([[FILE_WORD, FILE_NAME_WEIGHT]]));
  if (MANY_THINGS.test(query)) groups.push(new Map(MANY_AT_ONCE_WORDS.map((word) => [word, MANY_AT_ONCE_WEIGHT])));
  const pairs: QueryGroup[] = [...pairsSaid].map((pair) => new Map([[pair, PAIR_WEIGHT]]));
  // A question asks to read: "what tables are in this base" wants list_tables, not create_table.
  if (QUESTION.test(query)) pairs.push(READING);
  return { groups, pairs };
}

/**
 * The words a query runs together that the tools write apart: a word no tool holds, of six letters
 * or more and no digit, that is two words tools hold ("sitemap": tavily_map's "site map", "richmenu":
 * create_rich_menu), read as those two words and their pair. Of the ways to cut it (each part of
 * three letters or more), the one whose shorter part is longest. Nineteenth round, twelve query sets
 * tuned on, BENCHMARKS.md §7: each set left out, +1 first, +1 in five; requiring the pair itself in a
 * tool's text (not only its two words) moved one query within the five.
 */
function compounds(query: string, known: (term: string) => boolean): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const word of new Set(splitWords(withUrlsAsHosts(query)))) {
    if (word.length < 2 * COMPOUND_PART_LENGTH || /\d/.test(word)) continue;
    const [whole] = textTokens(word);
    if (whole === undefined || known(whole)) continue;
    let best: [string, string] | undefined;
    let bestShorter = 0;
    for (let at = COMPOUND_PART_LENGTH; at <= word.length - COMPOUND_PART_LENGTH; at++) {
      const shorter = Math.min(at, word.length - at);
      if (shorter <= bestShorter) continue;
      const [left] = textTokens(word.slice(0, at));
      const [right] = textTokens(word.slice(at));
      if (left !== undefined && right !== undefined && known(left) && known(right)) [best, bestShorter] = [[left, right], shorter];
    }
    if (best) found.push(best);
  }
  return found;
}

/**
 * A word no tool holds, of three letters or more and no digit, is read as the (at most) three
 * words tools hold that it begins, those held by the most tools, each at 0.5: how requests shorten
 * what tool texts write out ("GPS coords", "youtu.be"). Twenty-first round, thirteen query sets
 * tuned on, BENCHMARKS.md §7: each set left out, +2 first, +1 in five; at weight 1, or only for
 * whole words three letters longer, less; a tool's short form read for the query's long one lost.
 */
const SHORTENED_READINGS = 3;
const SHORTENED_WEIGHT = 0.5;

/** Parts shorter than this are too often a prefix or an ending, not a word ("re" + "store", "list" + "ed"). */
const COMPOUND_PART_LENGTH = 3;

/**
 * A query read with its contractions undone: "won't", "can't", "shan't" as "will", "can", "shall"
 * (stop words), any other "n't", "'re", "'ve", "'ll", "'d", "'m" dropped, so "we won't do it" does
 * not say "won" and "t". Queries only: tool texts seldom contract, and reading them too moved a query
 * that held none. Twentieth round, twelve query sets tuned on, BENCHMARKS.md §7: each set left out,
 * +2 first, 0 in five; "n't" read as "not" gained one.
 */
function withoutContractions(query: string): string {
  return query
    .replace(/\b(won|can|shan)['\u2019]t\b/gi, (_, verb: string) => CONTRACTED_VERBS[verb.toLowerCase()]!)
    .replace(/n['\u2019]t\b|['\u2019](re|ve|ll|d|m)\b/gi, '');
}

const CONTRACTED_VERBS: Readonly<Record<string, string>> = { won: 'will', can: 'can', shan: 'shall' };

/**
 * The share of a tool name's words the query says: all of `directory_tree` for "directory tree",
 * half of `git_show`. A word the query says counts whole; a hand synonym of its first word, the
 * request's verb, at the synonym weight ("look up news": the `search` of perplexity_search, "find
 * my doc": notion's post-search). Eighth round, five query sets tuned on: 0.2-0.5 raised the first
 * and fourth held-out sets and lowered none (0.6 and over cost a query in five); the synonyms of
 * every query word, not only the first, cost the development set one in five, as in the seventh.
 * The words said only where the request's object goes do not count (placedWords).
 */
function nameCoverage(name: readonly string[], said: ReadonlyMap<string, number>, placed: ReadonlySet<string>, serverWide: ReadonlySet<string>): number {
  if (name.length === 0) return 0;
  let covered = 0;
  for (const word of name) if (!placed.has(word) || serverWide.has(word)) covered += said.get(word) ?? 0;
  return covered / name.length;
}

/**
 * The words a request says only where its object goes, after a preposition that follows the object:
 * "add a row *to the Leads table*", "send a message *to all followers*", "append items *at the bottom
 * of my page*". They say where or to whom, not what the tool makes or reads, so they do not count
 * toward a tool's name (nameCoverage): create_record, not create_table; broadcast_message, not
 * get_follower_ids; unless they are the tool's server's own words (SHARED_NAME_WORD_SHARE: "in the
 * browser" still says browser_navigate, "to the JIRA ticket" jira_post). They still count everywhere
 * else (as words, for the server, in its text). A clause ends the place (a comma, "and", "that"); a
 * word also said outside a place counts; a question reads, so it has no object to tell apart ("what's
 * in the src folder"). Sixteenth round, ten query sets tuned on, BENCHMARKS.md §7: each set left out,
 * +8 queries first, 0 in five; the same words weighed less as words too (0.5, 0.75) lost places.
 */
function placedWords(query: string): Set<string> {
  if (QUESTION.test(query)) return new Set();
  const placed = new Set<string>();
  const elsewhere = new Set<string>();
  let inPlace = false;
  let objectSaid = false;
  const pieces = withUrlsAsHosts(query).replace(/([,;:.!?()])(\s|$)/g, ' $1 ').split(/\s+/).filter(Boolean);
  pieces.forEach((piece, at) => {
    const lower = piece.toLowerCase();
    if (CLAUSE_PUNCTUATION.test(lower)) {
      inPlace = false;
      return;
    }
    if (objectSaid && PLACING_PREPOSITIONS.has(lower)) {
      inPlace = true;
      return;
    }
    if (NEW_CLAUSE.has(lower)) {
      inPlace = false;
      objectSaid = false;
      return;
    }
    const words = textTokens(piece);
    if (at > 0 && !inPlace && words.length > 0) objectSaid = true;
    for (const word of words) (inPlace ? placed : elsewhere).add(word);
  });
  for (const word of elsewhere) placed.delete(word);
  return placed;
}

// Not "with" or "by", which as often say what the tool makes ("approve the pull request with a review").
const PLACING_PREPOSITIONS = new Set('to in on into onto from of under at inside within about for'.split(' '));
const CLAUSE_PUNCTUATION = /^[,;:.!?()]$/;
const NEW_CLAUSE = new Set(['and', 'that', 'then']);
/** A word of the server's name, or of at least this share of its tools' names, says the server, not one of its tools: 0.3 and 0.5 did the same in the sixteenth round. */
const SHARED_NAME_WORD_SHARE = 0.5;

/** The query's words for nameCoverage: each word at 1, its first word's hand synonyms at SYNONYM_WEIGHT. */
function saidWords(groups: readonly QueryGroup[]): Map<string, number> {
  const words = groups.map((group) => group.keys().next().value!);
  const said = new Map<string, number>(words[0] === undefined ? [] : synonymsOf(words[0]).map((synonym) => [synonym, SYNONYM_WEIGHT]));
  for (const word of words) said.set(word, 1);
  return said;
}

/** A tool that only reads: it says so (`readOnlyHint`), or its name has a reading verb and no changing one (get_issue, API-retrieve-a-comment). */
function readsOnly(tool: Tool, name: readonly string[]): boolean {
  return tool.annotations?.readOnlyHint === true || (name.some((word) => READING_VERBS.has(word)) && !name.some((word) => CHANGING_VERBS.has(word)));
}

/**
 * A request to change something: it starts with a changing verb ("add a row", "send a message"), or
 * it says something to keep or pass on, in a clause after "that" ("note that Dave prefers tea", "tell
 * #deploys that the release is out", "comment on the doc that it is out of date"), unless its verb
 * reads ("find records that mention…"). Not a question, which reads. The clause: eighth round, the
 * second held-out set +2 queries at 1, the development and third sets better ranked, none lower.
 */
function asksForChange(query: string): boolean {
  if (QUESTION.test(query)) return false;
  const [first] = textTokens(query);
  return first !== undefined && (CHANGING_VERBS.has(first) || (!READING_VERBS.has(first) && STATEMENT.test(query)));
}

/** A clause after "that", a word before it: what the request says ("remember that…"), not a leading "that …". */
const STATEMENT = /\S\s+that\s/i;

/** A file or host name ("report.pdf", "example.com"): its words name a file, not a server. */
const FILE_NAME = /[\w-]+(\.[\w-]+)+/g;

/** A name with a common file extension: the query speaks of a file. */
const FILE_NAME_WITH_EXTENSION = /[\w-]\.(json|ya?ml|toml|xml|csv|tsv|txt|md|pdf|docx?|xlsx?|pptx?|html?|css|js|mjs|ts|tsx|py|rb|go|rs|java|c|h|cpp|sh|log|ini|env|lock|png|jpe?g|gif|svg|webp|mp3|mp4|wav|zip|tar|gz)\b/i;
const FILE_WORD = stem('file');
/** How much the implied "file" counts against a word the query says. */
const FILE_NAME_WEIGHT = 0.5;
/**
 * A request for many things at once: a count of three or more, "several", "at once", or a list
 * ("contacts 101, 102 and 103"). Tools that act on many at once say so in their names (batch_,
 * _multiple_, bulk_), words such a request rarely says itself. ("how many" asks a count, not many
 * things; "two" is too often "for two guests".)
 */
const MANY_THINGS = /\b(three|four|five|six|seven|eight|nine|ten|several|multiple|at once|in bulk)\b|[\w.-]+, [\w.-]+,? (and|or) [\w.-]+/i;
const MANY_AT_ONCE_WORDS = ['batch', 'multiple', 'bulk'].map(stem);
/** Eighteenth round, eleven query sets: each set left out, 1 chosen on the other ten every time (of 0.25, 0.5, 1, 2): +4 first, 0 in five. */
const MANY_AT_ONCE_WEIGHT = 1;

/** Name words of a tool that only reads; a name holding one of these and none of CHANGING_VERBS reads. */
const READING_VERBS = new Set(['get', 'list', 'read', 'search', 'find', 'show', 'retrieve', 'fetch', 'describe', 'view', 'query', 'lookup'].map(stem));
/** Verbs that ask for a change, read off the synonym table's groups of making, removing, changing, sending and storing. */
const CHANGING_VERBS = new Set(
  'create make new add open start write compose delete remove erase drop destroy trash forget update edit modify change set patch send post notify save store put upload attach move rename copy duplicate clone'
    .split(' ')
    .map(stem),
);

/** The synonym table's removing verbs (CHANGING_VERBS holds them too). */
const REMOVING_VERBS = new Set('delete remove erase drop destroy trash forget'.split(' ').map(stem));

const QUESTION = /^\s*(what|which|who|where|when|how many|is|are|do|does|did)\b|\?\s*$/i;
const READING: QueryGroup = new Map(['list', 'get', 'read', 'search', 'show', 'find'].map((word) => [stem(word), QUESTION_WEIGHT]));

export class ToolSearch {
  private readonly toolIndex = new FieldIndex(TOOL_FIELDS);
  private readonly passages = new Passages();
  private readonly serverIndex = new FieldIndex(SERVER_FIELDS);
  /** One document per server: its whole text, for the server-text lift. */
  private readonly serverTextIndex = new FieldIndex(SERVER_TEXT_FIELDS);
  private readonly servers = new Map<string, IndexedServer>();
  /** Document number → its tool. */
  private readonly tools: Array<SearchableTool | undefined> = [];
  private readonly serverOfDoc: Array<SearchableServer | undefined> = [];
  /** Document number → its tool's texts (toolTexts), for its server's whole text and the word contexts. */
  private readonly textsOf: Array<string[][] | undefined> = [];
  /** Document number → the distinct words of its tool's name. */
  private readonly nameWords: Array<readonly string[] | undefined> = [];
  /**
   * Document number → its tool as indexed (fingerprint) and its name: a caller may change a tool
   * object in place and give it again, and then the object cannot say what was indexed (compared
   * with itself, it is always unchanged).
   */
  private readonly indexedAs: Array<{ fingerprint: string; name: string } | undefined> = [];
  /** Document number → whether its tool only reads: it says it is read-only, or its name's verb is a reading one. */
  private readonly reads: boolean[] = [];
  /** A query word → the words that go with it in the tools indexed (CO_OCCURRENCE_WEIGHT); emptied by any server change. */
  private readonly coOccurrences = new Map<string, ReadonlyArray<readonly [string, number]>>();
  /** How the catalogue's words are used: which words stand near which. */
  private readonly contexts = new WordContexts();
  /** The learned associations given, then the words used like a rare word, then the catalogue's co-occurrences. */
  private readonly expansions: Expansions = {
    get: (word) => [...(this.associations.get(word) ?? []), ...this.usedAlike(word), ...this.coOccurring(word)],
  };
  /** Document number → whether its tool's name has a removing verb (delete_relations). */
  private readonly removes: boolean[] = [];
  /** Document number → the kinds of value its tool's required parameters take. */
  private readonly takes: Array<ReadonlyArray<ValueKind | undefined>> = [];
  /** A kind of value (RECALLING_KINDS) → the tools a required parameter of which takes it. */
  private readonly byKind = new Map<ValueKind, Set<number>>();
  /** The form of an example value a tool's parameter description gives (valueShape: "A-9" of ABC-123) → the tools that give it. */
  private readonly byShape = new Map<string, Set<number>>();
  /** Document number → the forms of its tool's example values, to take it out of byShape. */
  private readonly shapesOf: Array<ReadonlySet<string> | undefined> = [];
  /** The tools whose two or more required parameters all take numbers or paths. */
  private readonly takingCommonValues = new Set<number>();
  /** A word of a server's name → the servers whose names hold it. */
  private readonly serversByNameWord = new Map<string, Set<string>>();
  private readonly byExactName = new Map<string, Set<number>>();
  /** A tool's name and description → the tools of every server that list exactly these (a copy on another server is their twin). */
  private readonly twins = new Map<string, Twins>();
  /** Document number → its group in `twins` (itself included), so that a query does not work out keys. */
  private readonly twinsOf: Array<Twins | undefined> = [];
  /** How many tools impersonate a twin (impersonates): none in most catalogues, and then a query skips settleTwins. */
  private impersonators = 0;
  /** Document number → whether its tool's description names its own server (namesServer). */
  private readonly namesItsServer: boolean[] = [];
  private toolTotal = 0;
  /** One query's word scores and phrase bonus, reused by the next query. */
  private readonly words = new ScoreSheet();
  private readonly phrases = new ScoreSheet();
  private readonly serverTexts = new ScoreSheet();
  /** Tool document number → its server's whole-text document number. */
  private readonly serverTextOfDoc: number[] = [];
  /** Vector similarity to the query, for the hybrid ranking. */
  private readonly similarity = new ScoreSheet();

  private readonly associations: Associations;

  constructor(servers: readonly SearchableServer[] = [], tools: readonly SearchableTool[] = [], options: { associations?: Associations } = {}) {
    this.associations = options.associations ?? NO_ASSOCIATIONS;
    const byServer = new Map<string, Tool[]>();
    for (const { server, tool } of tools) {
      const list = byServer.get(server);
      if (list) list.push(tool);
      else byServer.set(server, [tool]);
    }
    const known = new Map(servers.map((server) => [server.name, server]));
    for (const server of servers) this.setServer(server, byServer.get(server.name) ?? []);
    for (const [name, list] of byServer) if (!known.has(name)) this.setServer({ name }, list);
  }

  get toolCount(): number {
    return this.toolTotal;
  }

  /** The tools and server record search holds for a server, as last set. */
  indexed(name: string): { server: SearchableServer; tools: readonly Tool[] } | undefined {
    return this.servers.get(name);
  }

  /**
   * Replaces what search knows of one server: its description and its tools. A tool the server
   * lists as before (the same definition) keeps its place in the index; only the tools whose
   * definitions changed, came or went are indexed or taken out (a `list_changed` usually changes one
   * tool of many). A changed purpose is in every tool's fields: all of them are indexed again.
   */
  setServer(server: SearchableServer, tools: readonly Tool[]): void {
    const nameTokens = identifierTokens(server.name);
    const purpose = serverPurposeTokens(server);
    const known = this.servers.get(server.name);
    const kept = known && sameWords(known.purpose, purpose) ? this.keptTools(known, tools) : undefined;
    if (known) this.removeServerRecord(known, kept ?? NONE_KEPT);
    this.coOccurrences.clear();
    // Before its tools', as the texts of a server's tools always were counted: a word's contexts are summed in the order they came.
    this.contexts.set(server.name, [purpose]);
    const docs = tools.map((tool, at) => {
      const doc = kept?.docs[at];
      if (doc === undefined) return this.addTool(server.name, tool, nameTokens, purpose);
      // The new list's object, equal to the one indexed: callers may know a tool by its object.
      this.tools[doc] = { server: server.name, tool };
      return doc;
    });
    for (const word of nameTokens) {
      let names = this.serversByNameWord.get(word);
      if (!names) this.serversByNameWord.set(word, (names = new Set()));
      names.add(server.name);
    }
    const serverFields = serverDocument(server, tools);
    const serverDoc = this.keptEntry(this.serverIndex, known?.serverDoc, known?.serverFields, serverFields);
    this.serverOfDoc[serverDoc] = server;
    const serverTextFields = serverTextDocument(nameTokens, purpose, docs.map((doc) => this.textsOf[doc]!));
    const serverTextDoc = this.keptEntry(this.serverTextIndex, known?.serverTextDoc, known?.serverTextFields, serverTextFields);
    for (const doc of docs) this.serverTextOfDoc[doc] = serverTextDoc;
    this.servers.set(server.name, { server, tools: [...tools], docs, purpose, serverDoc, serverFields, serverTextDoc, serverTextFields, sharedNameWords: this.sharedNameWords(nameTokens, docs) });
    this.toolTotal += docs.length;
  }

  /**
   * A server-level entry for `fields`: the one indexed when its words are the same (taking it out
   * and adding it again would drop its words' cached scores for nothing), else a new one.
   */
  private keptEntry(index: FieldIndex, doc: number | undefined, indexed: FieldTokens | undefined, fields: string[][]): number {
    if (doc !== undefined && indexed && sameFields(indexed, fields)) return doc;
    if (doc !== undefined) index.remove(doc);
    return index.add(fields);
  }

  /**
   * Of a server's tools as indexed, those the new list holds again unchanged: per new tool, the
   * document it keeps (undefined for one to index); the documents of the others are to take out.
   */
  private keptTools(known: IndexedServer, tools: readonly Tool[]): KeptTools {
    const byName = new Map<string, number[]>();
    for (const doc of known.docs) {
      const { name } = this.indexedAs[doc]!;
      const docs = byName.get(name);
      if (docs) docs.push(doc);
      else byName.set(name, [doc]);
    }
    const docs = tools.map((tool) => {
      const candidates = byName.get(tool.name);
      if (!candidates?.length) return undefined;
      const print = fingerprint(tool);
      const at = candidates.findIndex((doc) => this.indexedAs[doc]!.fingerprint === print);
      return at < 0 ? undefined : candidates.splice(at, 1)[0];
    });
    return { docs, kept: new Set(docs.filter((doc) => doc !== undefined)) };
  }

  /** Indexes one tool of a server and returns its document number. */
  private addTool(serverName: string, tool: Tool, nameTokens: string[], purpose: string[]): number {
    const { fields, pairs } = toolDocument(tool, nameTokens, purpose);
    const doc = this.toolIndex.add(fields, pairs);
    this.passages.add(doc, toolPassages(tool, fields));
    this.textsOf[doc] = toolTexts(tool, fields);
    this.contexts.set(doc, this.textsOf[doc]);
    this.tools[doc] = { server: serverName, tool };
    this.indexedAs[doc] = { fingerprint: fingerprint(tool), name: tool.name };
    this.nameWords[doc] = [...new Set(fields[0])];
    this.reads[doc] = readsOnly(tool, fields[0]!);
    this.removes[doc] = fields[0]!.some((word) => REMOVING_VERBS.has(word));
    this.takes[doc] = requiredKinds(tool);
    if (this.takes[doc].length >= 2 && this.takes[doc].every((kind) => kind !== undefined && COMMON_KINDS.has(kind))) this.takingCommonValues.add(doc);
    for (const kind of this.takes[doc]) {
      if (kind === undefined || !RECALLING_KINDS.has(kind)) continue;
      let docs = this.byKind.get(kind);
      if (!docs) this.byKind.set(kind, (docs = new Set()));
      docs.add(doc);
    }
    this.shapesOf[doc] = exampleShapes(tool);
    for (const shape of this.shapesOf[doc]) {
      let docs = this.byShape.get(shape);
      if (!docs) this.byShape.set(shape, (docs = new Set()));
      docs.add(doc);
    }
    for (const key of [foldedName(tool.name), foldedName(`${serverName}/${tool.name}`)]) {
      let docs = this.byExactName.get(key);
      if (!docs) this.byExactName.set(key, (docs = new Set()));
      docs.add(doc);
    }
    const key = twinKey(tool);
    let twins = this.twins.get(key);
    if (!twins) this.twins.set(key, (twins = { key, docs: new Set(), naming: 0 }));
    this.twinsOf[doc] = twins;
    this.namesItsServer[doc] = namesServer(tool.description ?? '', serverName);
    this.impersonators -= impersonatorsIn(twins);
    twins.docs.add(doc);
    if (this.namesItsServer[doc]) twins.naming++;
    this.impersonators += impersonatorsIn(twins);
    return doc;
  }

  private removeTool(serverName: string, doc: number): void {
    const { name } = this.indexedAs[doc]!;
    for (const key of [foldedName(name), foldedName(`${serverName}/${name}`)]) {
      const docs = this.byExactName.get(key);
      if (docs?.delete(doc) && docs.size === 0) this.byExactName.delete(key);
    }
    const twins = this.twinsOf[doc]!;
    this.impersonators -= impersonatorsIn(twins);
    twins.docs.delete(doc);
    if (this.namesItsServer[doc]) twins.naming--;
    this.impersonators += impersonatorsIn(twins);
    if (twins.docs.size === 0) this.twins.delete(twins.key);
    this.twinsOf[doc] = undefined;
    for (const docs of this.byKind.values()) docs.delete(doc);
    for (const shape of this.shapesOf[doc] ?? []) {
      const docs = this.byShape.get(shape);
      if (docs?.delete(doc) && docs.size === 0) this.byShape.delete(shape);
    }
    this.shapesOf[doc] = undefined;
    this.takingCommonValues.delete(doc);
    this.passages.remove(doc);
    this.contexts.remove(doc);
    this.toolIndex.remove(doc);
    this.tools[doc] = undefined;
    this.nameWords[doc] = undefined;
    this.indexedAs[doc] = undefined;
    this.textsOf[doc] = undefined;
  }

  private sharedNameWords(serverName: readonly string[], docs: readonly number[]): Set<string> {
    const holders = new Map<string, number>();
    for (const doc of docs) for (const word of this.nameWords[doc]!) holders.set(word, (holders.get(word) ?? 0) + 1);
    return new Set([...serverName, ...[...holders].filter(([, count]) => count >= docs.length * SHARED_NAME_WORD_SHARE).map(([word]) => word)]);
  }

  removeServer(name: string): void {
    const known = this.servers.get(name);
    if (!known) return;
    this.removeServerRecord(known, NONE_KEPT);
    this.serverIndex.remove(known.serverDoc);
    this.serverTextIndex.remove(known.serverTextDoc);
    this.serverOfDoc[known.serverDoc] = undefined;
  }

  /** Takes a server out of search, but for the tools `keep` names and its server-level entries (setServer keeps or replaces them). */
  private removeServerRecord(known: IndexedServer, keep: KeptTools): void {
    const { name } = known.server;
    for (const doc of known.docs) if (!keep.kept.has(doc)) this.removeTool(name, doc);
    this.coOccurrences.clear();
    this.contexts.remove(name);
    for (const word of identifierTokens(name)) {
      const names = this.serversByNameWord.get(word);
      if (names?.delete(name) && names.size === 0) this.serversByNameWord.delete(word);
    }
    this.servers.delete(name);
    this.toolTotal -= known.docs.length;
  }

  /** The best `limit` tools, of one server when `server` is given. */
  searchTools(query: string, limit: number, server?: string): RankedTool[] {
    return this.withExactNames(query, limit, server, (accept) =>
      this.top(this.scoreTools(query, limit, accept, false), limit, accept).map(([doc, score]) => ({ ...this.tools[doc]!, score })),
    );
  }

  /** The `limit` best of many scores, kept in a short sorted list: no sort of every matching tool. */
  private top(sheet: ScoreSheet, limit: number, accept: (doc: number) => boolean): Array<[number, number]> {
    const kept: Array<[number, number]> = [];
    const before = (doc: number, score: number, other: [number, number]) => score > other[1] || (score === other[1] && this.order(doc, other[0]) < 0);
    for (const doc of sheet.docs) {
      const score = sheet.score[doc]!;
      if (kept.length === limit && !before(doc, score, kept[limit - 1]!)) continue;
      if (!accept(doc)) continue;
      let at = kept.length;
      while (at > 0 && before(doc, score, kept[at - 1]!)) at--;
      kept.splice(at, 0, [doc, score]);
      if (kept.length > limit) kept.pop();
    }
    return kept;
  }

  /**
   * The lexical ranking fused with the ranking by vector similarity to the query (weighted
   * reciprocal rank fusion: a tool gains 1 / (k + rank) from the words' list and
   * `vectorWeight` / (k + rank) from the vectors'): a tool near the top of either list comes near
   * the top, the vectors pulling in proportion to their weight. Tools with no vector yet are ranked
   * by their words alone.
   */
  searchToolsHybrid(
    query: string,
    limit: number,
    server: string | undefined,
    queryVector: Float32Array,
    vectorOf: (tool: SearchableTool) => Float32Array | undefined,
    vectorWeight: number,
  ): RankedTool[] {
    return this.withExactNames(query, limit, server, (accept) => {
      // Its siblings' word scores are read beyond the depth: lifted as before the query's own bound.
      const sheet = this.scoreTools(query, FUSION_DEPTH, accept, true);
      const lexical = this.top(sheet, FUSION_DEPTH, accept);
      const { similarity } = this;
      similarity.clear(this.tools.length);
      this.tools.forEach((entry, doc) => {
        const vector = entry && accept(doc) ? vectorOf(entry) : undefined;
        if (vector) similarity.set(doc, cosine(queryVector, vector));
      });
      // The best FUSION_DEPTH kept as the words' are: sorting every tool (ties by name) cost 10-30 ms a query at 10,000 tools.
      const semantic = this.top(similarity, FUSION_DEPTH, accept);
      const fused = new Map<number, number>();
      for (const [list, weight] of [[lexical, 1], [semantic, vectorWeight]] as const) {
        list.slice(0, FUSION_DEPTH).forEach(([doc], rank) => fused.set(doc, (fused.get(doc) ?? 0) + weight / (RRF_K + rank + 1)));
      }
      const ranked = [...fused].sort(([a, first], [b, second]) => second - first || this.order(a, b));
      return this.siblingsByMeaning(ranked, sheet, similarity).map(([doc, score]) => ({ ...this.tools[doc]!, score }));
    });
  }

  /** The fused ranking with the first result's server's tools among the first SIBLING_WINDOW re-ordered in their own places (SIBLING_MEANING_WEIGHT). */
  private siblingsByMeaning(ranked: Array<[number, number]>, words: ScoreSheet, similarity: ScoreSheet): Array<[number, number]> {
    const first = ranked[0];
    if (!first) return ranked;
    const server = this.tools[first[0]]!.server;
    const places = ranked.slice(0, SIBLING_WINDOW).flatMap(([doc], place) => (this.tools[doc]!.server === server ? [place] : []));
    const siblings = places.map((place) => ranked[place]![0]);
    const best = Math.max(...siblings.map((doc) => words.score[doc]!)) || 1;
    const worth = (doc: number) => words.score[doc]! / best + SIBLING_MEANING_WEIGHT * similarity.score[doc]!;
    // Stable: a tie keeps the fusion's order.
    siblings.sort((a, b) => worth(b) - worth(a));
    const reordered = [...ranked];
    places.forEach((place, at) => (reordered[place] = [siblings[at]!, ranked[place]![1]]));
    return reordered;
  }

  /**
   * The words tools hold that a word no tool holds begins, as a shortened word stands for its whole
   * ("coords" for coordinates, "youtu" of youtu.be for YouTube): the SHORTENED_READINGS held by
   * the most tools, at SHORTENED_WEIGHT. Starts come from the index's table of word starts, kept as
   * servers change, so a query costs a lookup, not a pass over the vocabulary.
   */
  private wholeWordsOf(start: string): Array<[string, number]> {
    if (/\d/.test(start)) return [];
    const frequency = (word: string) => this.toolIndex.frequency(word);
    const wholes = [...this.toolIndex.wordsStartingWith(start)];
    wholes.sort((a, b) => frequency(b) - frequency(a) || (a < b ? -1 : 1));
    return wholes.slice(0, SHORTENED_READINGS).map((whole) => [whole, SHORTENED_WEIGHT]);
  }

  /** Every tool search holds, with its server. */
  *allTools(): Iterable<SearchableTool> {
    for (const entry of this.tools) if (entry) yield entry;
  }

  private withExactNames(query: string, limit: number, server: string | undefined, rank: (accept: (doc: number) => boolean) => RankedTool[]): RankedTool[] {
    const accept = (doc: number) => server === undefined || this.tools[doc]!.server === server;
    const exact = [...(this.byExactName.get(foldedName(query.trim())) ?? [])].filter(accept).sort((a, b) => Number(this.impersonates(a)) - Number(this.impersonates(b)) || this.order(a, b));
    const ranked = rank((doc) => accept(doc) && !exact.includes(doc));
    return [...exact.map((doc) => ({ ...this.tools[doc]!, score: EXACT_NAME_SCORE })), ...ranked.slice(0, limit)].slice(0, limit);
  }

  /** The words used most like `word`, when few tools hold it (RARE_WORD_NEIGHBOUR_WEIGHT). */
  private usedAlike(word: string): Array<readonly [string, number]> {
    const holding = this.toolIndex.holders(word, OWN_FIELDS, RARE_WORD_MAX_HOLDERS);
    if (!holding || holding.size === 0) return [];
    const heldByTwo = (other: string) => this.toolIndex.holders(other, OWN_FIELDS, 1) === undefined;
    return this.contexts.mostLike(word, RARE_WORD_NEIGHBOURS, heldByTwo).map(([other, cosine]) => [other, RARE_WORD_NEIGHBOUR_WEIGHT * cosine]);
  }

  /** The words that go with `word` in the tools indexed, with their weights (CO_OCCURRENCE_WEIGHT), worked out once per word between server changes. */
  private coOccurring(word: string): ReadonlyArray<readonly [string, number]> {
    let found = this.coOccurrences.get(word);
    if (found) return found;
    found = [];
    const holding = this.toolIndex.holders(word, OWN_FIELDS, CO_OCCURRENCE_MAX_HOLDERS);
    if (holding && holding.size >= 2) {
      const together = new Map<string, number>();
      for (const doc of holding) for (const other of this.nameWords[doc]!) if (other !== word) together.set(other, (together.get(other) ?? 0) + 1);
      const strengths: Array<[string, number]> = [];
      for (const [other, count] of together) {
        if (count < 2) continue;
        const pmi = Math.log((count * this.toolTotal) / (holding.size * this.toolIndex.frequency(other)));
        if (pmi >= CO_OCCURRENCE_MIN_PMI) strengths.push([other, CO_OCCURRENCE_WEIGHT * (count / holding.size) * Math.min(1, pmi / 4)]);
      }
      found = strengths.sort((a, b) => b[1] - a[1]).slice(0, CO_OCCURRENCE_PER_WORD);
    }
    // Bounded: a long run of queries with ever new words between two server changes.
    if (this.coOccurrences.size >= MAX_CACHED_WORDS) this.coOccurrences.clear();
    this.coOccurrences.set(word, found);
    return found;
  }

  /**
   * Scores of every tool that shares a word with the query: BM25F, times the share of the query's
   * words it matched, plus phrase bonus, lifted by the name and server lifts (liftedTools). The
   * sheet is valid until the next query.
   */
  private scoreTools(written: string, depth: number, accept: (doc: number) => boolean, beyondDepth: boolean): ScoreSheet {
    const query = withoutContractions(written);
    const { groups, pairs } = parseQuery(query, (term) => this.toolIndex.frequency(term) > 0, this.expansions, (start) => this.wholeWordsOf(start), (word) => withYo(this.toolIndex, word));
    const { words, phrases } = this;
    words.clear(this.toolIndex.capacity);
    phrases.clear(this.toolIndex.capacity);
    this.toolIndex.score(groups, words);
    // Words no tool uses ("Dave", "tea") say nothing about which tool: only the others count in the share.
    const known = groups.filter((group) => this.toolIndex.knows(group)).length;
    for (const doc of words.docs) words.score[doc]! *= Math.sqrt(words.coverage[doc]! / known);
    this.toolIndex.score(pairs, phrases);
    for (const doc of phrases.docs) words.add(doc, phrases.score[doc]!, 0);
    this.liftSpecificPair(groups, words);
    // Before the lifts, so that their pruning bound holds (the penalty only lowers).
    if (!groups.some((group) => [...group.keys()].some((word) => REMOVING_VERBS.has(word)))) {
      for (const doc of words.docs) if (this.removes[doc]) words.score[doc]! /= 1 + UNASKED_REMOVAL_PENALTY;
    }
    const values = queryValues(query);
    this.recallByValues(words, values);
    this.recallByShapes(words, query);
    this.lift(words, query, groups, values, depth, accept, beyondDepth);
    this.settleTwins(words);
    return words;
  }

  /**
   * A tool copied word for word onto another server (same name, same description) ranks just below
   * its twin whose description names its own server ("… in a GitHub repository" on `github`): a
   * server impersonating another's tool gets nothing from a smaller catalogue's lifts. Twins that
   * both name their server, or neither, keep their scores.
   */
  private settleTwins(sheet: ScoreSheet): void {
    if (this.impersonators === 0) return;
    for (const doc of sheet.docs) {
      if (!this.impersonates(doc)) continue;
      let owner = 0;
      for (const twin of this.twinsOf[doc]!.docs) if (this.namesItsServer[twin]) owner = Math.max(owner, sheet.score[twin]!);
      if (owner > 0 && sheet.score[doc]! >= owner) sheet.score[doc] = owner * TWIN_BELOW;
    }
  }

  /** Whether a tool's description does not name its server while a twin's names its own. */
  private impersonates(doc: number): boolean {
    return !this.namesItsServer[doc] && this.twinsOf[doc]!.naming > 0;
  }

  /** The tools one passage of which holds the query's two most specific words gain SPECIFIC_PAIR_WEIGHT. */
  private liftSpecificPair(groups: readonly QueryGroup[], words: ScoreSheet): void {
    const holders = (word: string) => this.toolIndex.frequency(word);
    const specific = groups
      .map((group) => [...group.keys()][0]!)
      .filter((word) => holders(word) > 0)
      .sort((a, b) => holders(a) - holders(b) || (a < b ? -1 : 1));
    if (specific.length < 2) return;
    for (const doc of this.passages.together(specific[0]!, specific[1]!)) words.score[doc]! *= 1 + SPECIFIC_PAIR_WEIGHT;
  }

  /**
   * The tools whose required parameters take the query's specific values, or whose every required
   * parameter (two or more, numbers or paths) its values fill, gain a share of the best word score
   * (VALUE_RECALL_WEIGHT).
   */
  private recallByValues(words: ScoreSheet, values: readonly ValueKind[]): void {
    const specific = values.filter((kind) => RECALLING_KINDS.has(kind));
    const common = values.length >= 2 && values.some((kind) => COMMON_KINDS.has(kind));
    if (specific.length === 0 && !common) return;
    let best = 0;
    for (const doc of words.docs) best = Math.max(best, words.score[doc]!);
    if (best === 0) return;
    const candidates = new Set<number>();
    for (const kind of new Set(specific)) for (const doc of this.byKind.get(kind) ?? []) candidates.add(doc);
    for (const doc of candidates) {
      const share = suppliedShare(this.takes[doc]!, specific);
      if (share > 0) words.add(doc, VALUE_RECALL_WEIGHT * share * best, 0);
    }
    if (!common) return;
    for (const doc of this.takingCommonValues) if (suppliedShare(this.takes[doc]!, values) === 1) words.add(doc, VALUE_RECALL_WEIGHT * best, 0);
  }

  /**
   * The tools one of whose parameters gives an example value of the form of a query's token
   * ("e.g., ABC-123" for PAY-2291) gain a share of the best word score (VALUE_SHAPE_WEIGHT).
   */
  private recallByShapes(words: ScoreSheet, query: string): void {
    const shapes = queryShapes(query);
    if (shapes.size === 0) return;
    const candidates = new Set<number>();
    for (const shape of shapes) for (const doc of this.byShape.get(shape) ?? []) candidates.add(doc);
    if (candidates.size === 0) return;
    let best = 0;
    for (const doc of words.docs) best = Math.max(best, words.score[doc]!);
    for (const doc of candidates) words.add(doc, VALUE_SHAPE_WEIGHT * best, 0);
  }

  /**
   * The name and server lifts, worked out only for tools that could still reach the best `depth`:
   * a tool whose score, lifted the most, stays below the depth-th best score unlifted cannot (lifts
   * only raise scores), so the ranking is the same as lifting every tool, at a fraction of the cost.
   * The most is the query's own (a query naming no server gives no tool the mention's lift) unless
   * `beyondDepth`: the caller reads scores past the best `depth`, which stay as MAX_LIFT leaves them.
   */
  private lift(words: ScoreSheet, query: string, groups: readonly QueryGroup[], values: readonly ValueKind[], depth: number, accept: (doc: number) => boolean, beyondDepth: boolean): void {
    const said = saidWords(groups);
    const placed = placedWords(query);
    const named = this.namedServers(query, groups);
    const changing = asksForChange(query);
    const asking = QUESTION.test(query);
    const { serverTexts } = this;
    serverTexts.clear(this.serverTextIndex.capacity);
    this.serverTextIndex.score(groups, serverTexts);
    let bestServerText = 0;
    for (const doc of serverTexts.docs) bestServerText = Math.max(bestServerText, serverTexts.score[doc]!);
    let mostMention = 0;
    for (const share of named.values()) mostMention = Math.max(mostMention, share);
    // The most this query's lifts can raise a tool, a lift it cannot give counting 1: at 10,000 tools, a fifth of the tools scored were lifted under MAX_LIFT, one in fourteen are under this.
    const mostLift = beyondDepth
      ? MAX_LIFT
      : (bestServerText > 0 ? 1 + SERVER_TEXT_WEIGHT : 1) *
        (1 + NAME_COVERAGE_WEIGHT) *
        (1 + SERVER_MENTION_WEIGHT * mostMention) *
        (changing ? 1 + ACTION_WEIGHT : asking ? 1 + QUESTION_READ_WEIGHT : 1) *
        (values.length > 0 ? 1 + VALUE_WEIGHT : 1);
    const unlifted = this.top(words, depth, accept);
    const floor = unlifted.length === depth ? unlifted[depth - 1]![1] / mostLift : 0;
    for (const doc of words.docs) {
      if (words.score[doc]! < floor) continue;
      const mention = named.size === 0 ? 0 : (named.get(this.tools[doc]!.server) ?? 0);
      const action = changing && !this.reads[doc] ? 1 + ACTION_WEIGHT : asking && this.reads[doc] ? 1 + QUESTION_READ_WEIGHT : 1;
      const supplied = 1 + VALUE_WEIGHT * suppliedShare(this.takes[doc]!, values);
      const serverText = bestServerText > 0 ? 1 + (SERVER_TEXT_WEIGHT * serverTexts.score[this.serverTextOfDoc[doc]!]!) / bestServerText : 1;
      words.score[doc]! *= serverText * (1 + NAME_COVERAGE_WEIGHT * nameCoverage(this.nameWords[doc]!, said, placed, this.servers.get(this.tools[doc]!.server)!.sharedNameWords)) * (1 + SERVER_MENTION_WEIGHT * mention) * action * supplied;
    }
  }

  /**
   * The servers a query names ("on github", "in postgres"), each with how surely: the share of the
   * tools holding the word that are that server's. A word few other tools use ("github") names its
   * server; one many tools use ("search" of brave-search, "line" of LINE) hardly does.
   */
  private namedServers(query: string, groups: readonly QueryGroup[]): Map<string, number> {
    const named = new Map<string, number>();
    const inFileNames = new Set((query.match(FILE_NAME) ?? []).flatMap(textTokens));
    for (const group of groups) {
      const [word] = group.keys();
      if (inFileNames.has(word!)) continue;
      const holding = this.toolIndex.frequency(word!);
      if (holding === 0) continue;
      for (const name of this.serversByNameWord.get(word!) ?? []) {
        const share = this.servers.get(name)!.docs.length / holding;
        if (share > (named.get(name) ?? 0)) named.set(name, share);
      }
    }
    return named;
  }

  /** Servers whose name or purpose matches the query, best first; an exact name first of all. */
  searchServers(query: string, limit: number): SearchableServer[] {
    const exact = this.servers.get(query.trim()) ?? [...this.servers.values()].find(({ server }) => server.name.toLowerCase() === query.trim().toLowerCase());
    const { groups } = parseQuery(query, (term) => this.serverIndex.frequency(term) > 0, this.associations, undefined, (word) => withYo(this.serverIndex, word));
    const sheet = new ScoreSheet();
    sheet.clear(this.serverIndex.capacity);
    this.serverIndex.score(groups, sheet);
    const known = groups.filter((group) => this.serverIndex.knows(group)).length;
    const ranked = sheet.docs
      .map((doc) => ({ server: this.serverOfDoc[doc]!, score: sheet.score[doc]! * Math.sqrt(sheet.coverage[doc]! / known) }))
      .filter(({ server }) => server !== exact?.server)
      .sort((a, b) => b.score - a.score || a.server.name.localeCompare(b.server.name))
      .map(({ server }) => server);
    return [...(exact ? [exact.server] : []), ...ranked].slice(0, limit);
  }

  private order(a: number, b: number): number {
    const first = this.tools[a]!;
    const second = this.tools[b]!;
    return first.server.localeCompare(second.server) || first.tool.name.localeCompare(second.tool.name);
  }
}

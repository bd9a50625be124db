/**
 * Values a query gives (a URL, a file path, a number, an e-mail address, a phone number, a
 * #channel) and the kinds of value a tool's required parameters take, read off its input schema:
 * "go to https://example.com" gives a URL, which browser_navigate's required `url` takes. Which
 * tool takes the values a user wrote says which tool they mean, whatever words they used.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { identifierTokens, textTokens } from './tokenize.js';

export type ValueKind = 'url' | 'path' | 'number' | 'email' | 'phone' | 'channel';

/** Kinds in the order they are looked for; a value is taken out of the query once recognised, so "https://a.com/x.md" is a URL and not also a path. */
const QUERY_VALUES: ReadonlyArray<[ValueKind, RegExp]> = [
  ['email', /[\w.+-]+@[\w-]+(\.[\w-]+)+/g],
  ['url', /\bhttps?:\/\/\S+|\b(www\.)?[\w-]+(\.[\w-]+)*\.(com|org|net|io|dev|ai|app|co|edu|gov)\b(\/\S*)?/gi],
  ['phone', /\+\d[\d\s().-]{6,}\d/g],
  ['path', /(^|\s)[\w.~-]*\/[\w./-]*|\b[\w-]+\.[a-z][a-z0-9]{0,4}\b/gi],
  ['channel', /(^|\s)#[\w-]+/g],
  ['number', /(^|[\s(,])[-+]?\d+(\.\d+)?(?=$|[\s,.?!)])/g],
];

const URL_PATTERN = QUERY_VALUES.find(([kind]) => kind === 'url')![1];

/**
 * The query with each URL read as its host's words ("https://acme.sentry.io/issues/61" → "acme
 * sentry"): the host may name a server, while the scheme, path, query and ids ("dQw4w9WgXcQ" read
 * as "d", "qw4w9", …) meet tool texts by chance. An e-mail address's host is not a URL.
 */
export function withUrlsAsHosts(query: string): string {
  return query.replace(URL_PATTERN, (match: string, ...rest: unknown[]) => {
    const offset = rest.at(-2) as number;
    if (query[offset - 1] === '@') return match;
    const host = match.replace(/^https?:\/\//i, '').split(/[/?#]/)[0]!.replace(/^www\./i, '');
    return ` ${host.split('.').slice(0, -1).join(' ')} `;
  });
}

/** The values a query gives, one kind per value found ("add 17 and 25": two numbers). */
export function queryValues(query: string): ValueKind[] {
  const kinds: ValueKind[] = [];
  let rest = query;
  for (const [kind, pattern] of QUERY_VALUES) {
    rest = rest.replace(pattern, (match, lead: string | undefined) => {
      kinds.push(kind);
      return typeof lead === 'string' && /^\s$/.test(lead) ? lead : ' ';
    });
  }
  return kinds;
}

/** Words of a parameter's name or description that say which kind of value it takes. */
const KIND_WORDS: ReadonlyArray<[ValueKind, ReadonlySet<string>]> = [
  ['url', new Set(textTokens('url uri link href website'))],
  ['email', new Set(textTokens('email'))],
  ['phone', new Set(textTokens('phone'))],
  ['channel', new Set(textTokens('channel'))],
  ['path', new Set(textTokens('path file filename directory folder'))],
];

interface PropertySchema {
  type?: unknown;
  format?: unknown;
  description?: unknown;
}

function kindOf(name: string, schema: PropertySchema): ValueKind | undefined {
  if (schema.type === 'number' || schema.type === 'integer') return 'number';
  if (schema.format === 'uri' || schema.format === 'url') return 'url';
  if (schema.format === 'email') return 'email';
  // The name says it first ("filePath", "channel_id"); the description's first words when the name does not.
  const named = new Set(identifierTokens(name));
  for (const [kind, words] of KIND_WORDS) if ([...words].some((word) => named.has(word))) return kind;
  const described = new Set(typeof schema.description === 'string' ? textTokens(schema.description).slice(0, 6) : []);
  for (const [kind, words] of KIND_WORDS) if ([...words].some((word) => described.has(word))) return kind;
  return undefined;
}

/** The kinds of value a tool's required parameters take, one per parameter (undefined: a kind no query value gives). */
export function requiredKinds(tool: Tool): Array<ValueKind | undefined> {
  const schema = tool.inputSchema as { properties?: Record<string, PropertySchema>; required?: unknown } | undefined;
  const properties = schema?.properties ?? {};
  const required = Array.isArray(schema?.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  return required.map((name) => kindOf(name, properties[name] ?? {}));
}

/** The share of a tool's required parameters the query's values can fill, each value filling one: 0 for a tool that requires nothing. */
export function suppliedShare(required: ReadonlyArray<ValueKind | undefined>, given: readonly ValueKind[]): number {
  if (required.length === 0 || given.length === 0) return 0;
  const left = [...given];
  let filled = 0;
  for (const kind of required) {
    const at = kind === undefined ? -1 : left.indexOf(kind);
    if (at < 0) continue;
    left.splice(at, 1);
    filled++;
  }
  return filled / required.length;
}

/** Where a parameter's description gives an example of its value: quoted, or after "e.g." / "such as" / "like" / "for example" / "format:". */
const EXAMPLE_PLACES = /`([^`]{1,60})`|"([^"]{1,60})"|'([^']{1,60})'|\b(?:e\.g\.?|eg|such as|like|for example|for instance|format|example|examples)[:,]?\s+([^\s,;)]+)/gi;

/**
 * The form of a value written as one token, its runs of capitals, small letters and digits with
 * the characters between them, lengths left out: ABC-123 and PAY-2291 are both "A-9", +15551234567
 * and the +44 of "+44 7700 900123" "+9". Only forms with a digit and a letter or a leading plus:
 * bare numbers and words say nothing of which tool wants them.
 */
export function valueShape(token: string): string | undefined {
  const value = token.replace(/^[("'`[<]+|[)"'`\]>.,;:!?]+$/g, '');
  if (!/\d/.test(value) || !/[A-Za-z]|^\+/.test(value) || value.length < 3 || value.length > 40) return undefined;
  const classes = value.replace(/[A-Z]/g, 'A').replace(/[a-z]/g, 'a').replace(/\d/g, '9');
  return classes.replace(/(.)\1+/g, '$1');
}

/**
 * The forms of the example values a tool's parameters' descriptions give ("The ID or identifier of
 * the issue (e.g., ABC-123)": "A-9"), optional parameters' too: a tool that filters by a phone
 * number wants one as surely as one that requires it.
 */
export function exampleShapes(tool: Tool): Set<string> {
  const schema = tool.inputSchema as { properties?: Record<string, PropertySchema>; required?: unknown } | undefined;
  const properties = schema?.properties ?? {};
  const shapes = new Set<string>();
  for (const property of Object.values(properties)) {
    if (typeof property?.description !== 'string') continue;
    for (const match of property.description.matchAll(EXAMPLE_PLACES)) {
      const example = match.slice(1).find((part) => part !== undefined) ?? '';
      for (const token of example.split(/[\s,]+/)) {
        const shape = valueShape(token);
        if (shape) shapes.add(shape);
      }
    }
  }
  return shapes;
}

/** The forms of the query's tokens that could be values (valueShape). */
export function queryShapes(query: string): Set<string> {
  const shapes = new Set<string>();
  for (const token of query.split(/\s+/)) {
    const shape = valueShape(token);
    if (shape) shapes.add(shape);
  }
  return shapes;
}

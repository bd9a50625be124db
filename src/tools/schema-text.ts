/**
 * A server's input schema with the text it addresses to the model escaped: every `description`
 * and `title` of the schema and of the schemas inside it (properties, items, `$defs`, the
 * combinators). Data the schema holds (`default`, `enum`, `const`, `examples`) is what arguments
 * are checked against, so it stays as it is, and so does every key.
 */
import { terminalText } from '../../machines/control-characters.js';

/** Keywords whose value is one schema, or (`items` of older drafts) a list of them. */
const SCHEMA_KEYWORDS = new Set(['items', 'additionalItems', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'contains', 'propertyNames', 'not', 'if', 'then', 'else']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to schemas (`dependencies` may map a name to a list of names, left as it is). */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
const TEXT_KEYWORDS = new Set(['description', 'title']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function escapedSubschema(value: unknown, text: (value: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => escapedSubschema(item, text));
  return isObject(value) ? schemaTextEscaped(value, text) : value;
}

function escapedKeyword(key: string, value: unknown, text: (value: string) => string): unknown {
  if (TEXT_KEYWORDS.has(key)) return typeof value === 'string' ? text(value) : value;
  if (SCHEMA_KEYWORDS.has(key) || SCHEMA_LIST_KEYWORDS.has(key)) return escapedSubschema(value, text);
  if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, escapedSubschema(schema, text)]));
  return value;
}

/**
 * `schema` with its descriptions and titles as `text` makes them (escaped; it may cut them too), at
 * every depth, in the order they are written; nothing else changed.
 */
export function schemaTextEscaped(schema: Record<string, unknown>, text: (value: string) => string = terminalText): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, escapedKeyword(key, value, text)]));
}

/**
 * `${VAR}` and `${VAR:-default}` expansion, the syntax mcp.json files share with shells.
 * As in a shell, `:-` falls back when the variable is unset *or empty*. Anything that does not
 * match (`$VAR`, `${}`, `${1X}`, an unclosed `${`) is left as written. No nesting, no escapes.
 */

export type VariableSource = Record<string, string | undefined>;

export interface Expansion {
  value: string;
  /** Variables that were unset and had no default; they expanded to ''. Names only, never values. */
  unset: string[];
  /** The values taken from the environment (not defaults written in the file): secrets to keep out of any output. */
  substituted: string[];
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandVariables(text: string, env: VariableSource): Expansion {
  // Fast path: most strings reference nothing, and 10,000-server files must stay cheap.
  if (!text.includes('${')) return { value: text, unset: [], substituted: [] };
  const unset: string[] = [];
  const substituted: string[] = [];
  const value = text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    // Own properties only: `${constructor}` must not reach Object.prototype.constructor.
    const current = Object.hasOwn(env, name) ? env[name] : undefined;
    const isSet = typeof current === 'string';
    if (isSet && current !== '') substituted.push(current);
    if (fallback !== undefined) return isSet && current !== '' ? current : fallback;
    if (isSet) return current;
    unset.push(name);
    return '';
  });
  return { value, unset, substituted };
}

/** The names of the variables `text` reads, in order, each once. */
export function referencedVariables(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(REFERENCE), (match) => match[1] as string))];
}

/** What `text` says besides its references: each `${VAR}` removed, each `${VAR:-default}` replaced by its default (written in the file). */
export function literalText(text: string): string {
  return text.includes('${') ? text.replace(REFERENCE, (_match, _name: string, fallback: string | undefined) => fallback ?? '') : text;
}

/**
 * `text` with each piece written literally in it — the text around its references, and each
 * default (`${VAR:-default}`) — passed through `replace`, the references kept as written. `first`:
 * the piece opens the text.
 */
export function replaceLiteralText(text: string, replace: (literal: string, first: boolean) => string): string {
  let replaced = '';
  let end = 0;
  for (const match of text.matchAll(REFERENCE)) {
    if (match.index > end) replaced += replace(text.slice(end, match.index), end === 0);
    const [, name, fallback] = match;
    replaced += fallback === undefined ? `\${${name}}` : `\${${name}:-${fallback === '' ? '' : replace(fallback, false)}}`;
    end = match.index + match[0].length;
  }
  return end < text.length ? replaced + replace(text.slice(end), end === 0) : replaced;
}

/**
 * Which characters of `text` spell its references (`${`, the name, `:-`, `}`), as opposed to
 * text written literally (a default included): `true` at each such index.
 */
export function referenceSyntax(text: string): boolean[] {
  const syntax = new Array<boolean>(text.length).fill(false);
  for (const match of text.matchAll(REFERENCE)) {
    const [whole, name, fallback] = match;
    const opening = 2 + name!.length + (fallback === undefined ? 0 : 2);
    syntax.fill(true, match.index, match.index + opening);
    syntax[match.index + whole.length - 1] = true;
  }
  return syntax;
}

/** The defaults `text`'s references write (`${VAR:-default}`), in order. */
export function writtenDefaults(text: string): string[] {
  return Array.from(text.matchAll(REFERENCE), (match) => match[2]).filter((fallback): fallback is string => fallback !== undefined && fallback !== '');
}

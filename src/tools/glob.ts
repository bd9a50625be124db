/**
 * Glob matching for allow/deny patterns in linear time. `*` matches any run of characters;
 * everything else, dots included, matches only itself. A regular expression built from a
 * pattern like `prod-*-*-*-db` backtracks: cubic time on a long name, seconds for a 4 KB name
 * the model made up. Here each literal piece is searched for once, left to right: the leftmost
 * place a piece fits is always as good as any later one, because the `*` after it can absorb
 * the difference. So no position is ever tried twice.
 *
 * @example
 * ```ts
 * import { matchesPattern } from 'mcp-statechart/config';
 *
 * matchesPattern('prod-*', 'prod-db'); // true
 * matchesPattern('github/*', 'gitlab/issues'); // false
 * ```
 */
export function globMatches(pattern: string, name: string): boolean {
  return compileGlob(pattern)(name);
}

/** The pattern split once, for names checked on every call (the loader's permission patterns). */
export function compileGlob(pattern: string): (name: string) => boolean {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return (name) => name === pattern;
  const first = pieces[0] as string;
  const last = pieces[pieces.length - 1] as string;
  const middle = pieces.slice(1, -1).filter((piece) => piece !== '');
  return (name) => {
    // The fixed ends must fit without overlapping each other.
    if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
    let at = first.length;
    const end = name.length - last.length;
    for (const piece of middle) {
      const found = name.indexOf(piece, at);
      if (found === -1 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}

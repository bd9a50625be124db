/** The names nearest to a mistyped one, for "unknown server; did you mean …". */

/** Names longer than this are compared on their first characters only: the cost of one comparison stays bounded. */
const MAX_COMPARED_LENGTH = 64;

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Up to `limit` names, nearest first: a name that contains the typed one (a partial name) counts as near.
 * `maxEdits` defaults to half the typed length (a model gets a broad list to choose from); a person
 * told "did you mean …" wants fewer, closer names.
 */
export function closestNames(typed: string, names: readonly string[], limit = 5, maxEdits?: number): string[] {
  const wanted = typed.toLowerCase().slice(0, MAX_COMPARED_LENGTH);
  const scored = names.map((name) => {
    const candidate = name.toLowerCase().slice(0, MAX_COMPARED_LENGTH);
    const contains = wanted.length > 0 && candidate.includes(wanted);
    const distance = contains ? Math.abs(candidate.length - wanted.length) / 4 : editDistance(wanted, candidate);
    return { name, distance };
  });
  scored.sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  const cutoff = maxEdits ?? Math.max(2, Math.ceil(wanted.length / 2));
  return scored.filter(({ distance }) => distance <= cutoff).slice(0, limit).map(({ name }) => name);
}

/** The names nearest to a mistyped one, for "unknown server; did you mean …". */
import { foldedName } from './tokenize.js';

/** Names longer than this are compared on their first characters only: the cost of one comparison stays bounded. */
const MAX_COMPARED_LENGTH = 64;

/** A name folded for comparison; cut first, so that a huge name costs no more than a long one. */
const compared = (name: string): string => foldedName(name.slice(0, 2 * MAX_COMPARED_LENGTH)).slice(0, MAX_COMPARED_LENGTH);

const nfcLower = (name: string): string => name.slice(0, 2 * MAX_COMPARED_LENGTH).normalize('NFC').toLowerCase();

/** The names that differ from the typed one only in case, accents or Unicode form ("CAFÉ", "cafe\u0301" for "café"). */
export function foldedAlike(typed: string, names: readonly string[]): string[] {
  const wanted = foldedName(typed);
  return names.filter((name) => name !== typed && foldedName(name) === wanted);
}

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
 * told "did you mean …" wants fewer, closer names. Compared folded as search folds words (NFKC, case,
 * accents, İ/ı): "CAFÉ", an NFD "cafe\u0301" and "cafe" are at no distance from "café". Offered,
 * never taken: a name is looked up exactly, so a look-alike never stands in for the one named.
 */
export function closestNames(typed: string, names: readonly string[], limit = 5, maxEdits?: number): string[] {
  const wanted = compared(typed);
  const written = nfcLower(typed);
  const scored = names.map((name) => {
    const candidate = compared(name);
    const contains = wanted.length > 0 && candidate.includes(wanted);
    const distance = contains ? Math.abs(candidate.length - wanted.length) / 4 : editDistance(wanted, candidate);
    // Among names that fold alike ("cafe", "café"), the one with the typed accents first.
    return { name, distance, accented: distance === 0 && nfcLower(name) !== written ? 1 : 0 };
  });
  scored.sort((a, b) => a.distance - b.distance || a.accented - b.accented || a.name.localeCompare(b.name));
  const cutoff = maxEdits ?? Math.max(2, Math.ceil(wanted.length / 2));
  return scored.filter(({ distance }) => distance <= cutoff).slice(0, limit).map(({ name }) => name);
}

/**
 * What tells a name apart from one that prints the same. `café` written with a combining accent
 * (NFD) and `café` written with é (NFC) look identical, as do `fs` and `fѕ` (Cyrillic ѕ) or
 * `read_file` and `rеad_file` (Cyrillic е): two configured servers or two tools of a server could
 * not be told apart in a list, and "did you mean" could offer what had just been typed. A name
 * that is not NFC, or mixes Latin, Cyrillic and Greek letters, is shown with a note saying so.
 * A name in one of those scripts alone (`аре`, all Cyrillic) is noted only where a name shown
 * beside it folds to the same letters: most Cyrillic and Greek names are just Russian or Greek.
 */

const LOOK_ALIKE_SCRIPTS = ['Latin', 'Cyrillic', 'Greek'] as const;
type LookAlikeScript = (typeof LOOK_ALIKE_SCRIPTS)[number];
const SCRIPT_LETTER: Record<LookAlikeScript, RegExp> = {
  Latin: /\p{Script=Latin}/u,
  Cyrillic: /\p{Script=Cyrillic}/u,
  Greek: /\p{Script=Greek}/u,
};
/** Letters of another script noted by a mixed-script name: enough to find them, not a paragraph. */
const NOTED_LETTERS = 3;

/** Cyrillic and Greek letters drawn like a Latin one (the common cases of Unicode's confusables list). */
const LATIN_LOOK_ALIKES: Record<string, string> = {
  а: 'a', с: 'c', ԁ: 'd', е: 'e', һ: 'h', і: 'i', ј: 'j', ӏ: 'l', о: 'o', р: 'p', ԛ: 'q', ѕ: 's', ԝ: 'w', х: 'x', у: 'y',
  А: 'A', В: 'B', С: 'C', Е: 'E', Н: 'H', І: 'I', Ј: 'J', К: 'K', М: 'M', О: 'O', Р: 'P', Ѕ: 'S', Т: 'T', Х: 'X', Ү: 'Y',
  α: 'a', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', υ: 'u', χ: 'x',
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X',
};

function scriptOf(char: string): LookAlikeScript | undefined {
  return LOOK_ALIKE_SCRIPTS.find((script) => SCRIPT_LETTER[script].test(char));
}

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `Cyrillic ѕ U+0455, е U+0435` for the letters outside the name's main script, or '' when it has one. */
function mixedScripts(name: string): string {
  const letters = new Map<LookAlikeScript, Set<string>>();
  const counts = new Map<LookAlikeScript, number>();
  for (const char of name) {
    const script = scriptOf(char);
    if (script === undefined) continue;
    counts.set(script, (counts.get(script) ?? 0) + 1);
    letters.set(script, (letters.get(script) ?? new Set()).add(char));
  }
  if (counts.size < 2) return '';
  // The script with the most letters is the name's own (Latin on a tie: `fѕ` is `fs` with a Cyrillic ѕ).
  const main = [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
  return [...letters]
    .filter(([script]) => script !== main)
    .map(([script, chars]) => `${script} ${[...chars].slice(0, NOTED_LETTERS).map((char) => `${char} ${codePoint(char)}`).join(', ')}`)
    .join('; ');
}

/**
 * ` (not NFC)`, ` (mixed scripts: Cyrillic ѕ U+0455)`, both, or '' for a name that reads as what
 * it is. Put after the name wherever it is shown to a person or the model.
 */
export function nameNote(name: string): string {
  const notes: string[] = [];
  if (name !== name.normalize('NFC')) notes.push('not NFC');
  const mixed = mixedScripts(name);
  if (mixed !== '') notes.push(`mixed scripts: ${mixed}`);
  return notes.length === 0 ? '' : ` (${notes.join('; ')})`;
}

/** What a name looks like: NFKC, Cyrillic and Greek look-alikes as Latin letters. Case is kept: `CAFÉ` and `café` differ to the eye. */
function lookAlikeKey(name: string): string {
  let key = '';
  for (const char of name.normalize('NFKC')) key += LATIN_LOOK_ALIKES[char] ?? char;
  return key;
}

/** ` (Cyrillic)`, or for a name without Cyrillic or Greek letters its characters beyond ASCII. */
function differsBy(name: string): string {
  const scripts = [...new Set([...name].map(scriptOf))].filter((script) => script !== undefined && script !== 'Latin');
  if (scripts.length > 0) return ` (${scripts.join(', ')})`;
  const beyondAscii = [...new Set([...name].filter((char) => char > '\x7f'))];
  return ` (${beyondAscii.slice(0, NOTED_LETTERS).map(codePoint).join(' ')})`;
}

/**
 * For each of `names` shown together (a list, a name and the suggestions for it), what else tells
 * it apart: a name beyond ASCII that looks like another of them gets its script (`"аре" (Cyrillic)`
 * beside `"ape"`). '' for the rest: a name whose `nameNote` already says how it differs, and the
 * NFC `café` beside the NFD one (noted `not NFC`).
 */
export function lookAlikeNotes(names: readonly string[]): string[] {
  // Per look-alike key, the names its `nameNote` does not already mark: only those still print the same.
  const keys = names.map(lookAlikeKey);
  const unmarked = new Map<string, Set<string>>();
  names.forEach((name, index) => {
    if (nameNote(name) === '') unmarked.set(keys[index]!, (unmarked.get(keys[index]!) ?? new Set()).add(name));
  });
  return names.map((name, index) => {
    const alike = unmarked.get(keys[index]!);
    if (alike === undefined || alike.size < 2 || !alike.has(name) || /^[\x00-\x7f]*$/.test(name)) return '';
    return differsBy(name);
  });
}

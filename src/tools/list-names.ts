import { isolatedForPerson, terminalLine } from '../../machines/control-characters.js';
import { lookAlikeNotes, nameNote } from '../../machines/look-alike-names.js';

interface ListOptions {
  /** Names shown next to the list (the name typed, before "Nearest to") a listed one may look like. */
  beside?: readonly string[];
  /** For a person at a terminal: each right-to-left name set apart, so a bidi terminal keeps the list's order. */
  forPerson?: boolean;
}

/**
 * A name list for a message: long lists end in "and N more", so one message cannot flood the
 * context; each name on one line, its control characters shown escaped (model-text.ts says why),
 * and followed by what tells it from a name that prints the same (look-alike-names.ts).
 */
export function listNames(names: readonly string[], limit = 50, { beside = [], forPerson = false }: ListOptions = {}): string {
  if (names.length === 0) return 'none';
  const listed = names.slice(0, limit);
  const alike = lookAlikeNotes([...listed, ...beside]);
  const shown = listed.map((name, index) => {
    const line = terminalLine(name);
    return `${forPerson ? isolatedForPerson(line) : line}${nameNote(name)}${alike[index]}`;
  });
  return names.length > limit ? `${shown.join(', ')} and ${names.length - limit} more` : shown.join(', ');
}

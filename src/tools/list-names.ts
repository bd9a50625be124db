import { terminalLine } from '../../machines/control-characters.js';
import { lookAlikeNotes, nameNote } from '../../machines/look-alike-names.js';

/**
 * A name list for a message: long lists end in "and N more", so one message cannot flood the
 * context; each name on one line, its control characters shown escaped (model-text.ts says why),
 * and followed by what tells it from a name that prints the same (look-alike-names.ts). `beside`:
 * names shown next to the list (the name typed, before "Nearest to") a listed one may look like.
 */
export function listNames(names: readonly string[], limit = 50, beside: readonly string[] = []): string {
  if (names.length === 0) return 'none';
  const listed = names.slice(0, limit);
  const alike = lookAlikeNotes([...listed, ...beside]);
  const shown = listed.map((name, index) => `${terminalLine(name)}${nameNote(name)}${alike[index]}`).join(', ');
  return names.length > limit ? `${shown} and ${names.length - limit} more` : shown;
}

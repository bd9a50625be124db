import { terminalLine } from '../../machines/control-characters.js';

/**
 * A name list for a message: long lists end in "and N more", so one message cannot flood the
 * context; each name on one line, its control characters shown escaped (model-text.ts says why).
 */
export function listNames(names: readonly string[], limit = 50): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, limit).map(terminalLine).join(', ');
  return names.length > limit ? `${shown} and ${names.length - limit} more` : shown;
}

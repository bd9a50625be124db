/** A name list for a message: long lists end in "and N more", so one message cannot flood the context. */
export function listNames(names: readonly string[], limit = 50): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, limit).join(', ');
  return names.length > limit ? `${shown} and ${names.length - limit} more` : shown;
}

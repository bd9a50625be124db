/** How long ago a time was, in a few words for a model: "under a minute", "5 min", "3 h", "2 days". */
export function ageText(since: string, now = Date.now()): string {
  const seconds = Math.max(0, (now - Date.parse(since)) / 1000);
  if (!Number.isFinite(seconds)) return 'an unknown time';
  if (seconds < 60) return 'under a minute';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}

/** What search, `servers` and `index` say of an index entry past the `ttlMs` its server gave the tool list. */
export function pastTtlText(indexedAt: string, now = Date.now()): string {
  return `indexed ${ageText(indexedAt, now)} ago, past the time its server said the tool list stays fresh`;
}

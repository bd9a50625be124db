/** How long ago a time was, in a few words for a model: "under a minute", "5 min", "3 h", "2 days". */
export function ageText(since: string, now = Date.now()): string {
  const seconds = Math.max(0, (now - Date.parse(since)) / 1000);
  if (!Number.isFinite(seconds)) return 'an unknown time';
  if (seconds < 60) return 'under a minute';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}

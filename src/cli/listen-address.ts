/** `[host:]port` as `--metrics` and `serve --http` take it: loopback unless a host is named. */
export function parseListenAddress(text: string, flag: string, example: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || port > 65_535) throw new Error(`${flag} takes [host:]port, e.g. ${flag} ${example} or ${flag} 127.0.0.1:${example} (got "${text}")`);
  return { host: match[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port };
}

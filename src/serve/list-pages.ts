import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * How many items one page of a list serve answers holds: a host asks again with `nextCursor` for
 * the rest. The v2 client walks at most 64 pages when it lists without a cursor, so a smaller page
 * would leave a host that lists everything at once short of a long list.
 */
export const SERVED_PAGE_SIZE = 500;

/**
 * Pages of a list serve builds for its host. A cursor holds the next page's offset and the list's
 * length when it was given, and nothing of this process: behind a balancer the next page may be
 * asked of another replica (README "team gateway": no shared store), which reads it the same. The
 * list is built anew for each request from what the caller may see, so a made-up cursor reads only
 * the caller's own list; one past the end, or given for a list that has since grown or shrunk, is
 * refused so the host lists again rather than skipping or repeating items.
 */
export function listPager(pageSize = SERVED_PAGE_SIZE) {
  const cursorAt = (offset: number, length: number) => Buffer.from(`${offset}/${length}`).toString('base64url');

  const offsetOf = (cursor: string | undefined, length: number): number => {
    if (cursor === undefined) return 0;
    const match = /^([1-9]\d{0,8})\/([1-9]\d{0,8})$/.exec(Buffer.from(cursor.slice(0, 200), 'base64url').toString());
    const offset = Number(match?.[1]);
    if (match === null || Number(match[2]) !== length || offset >= length || cursorAt(offset, length) !== cursor) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Unknown cursor: mcp-statechart serve reads only the nextCursor it gave, for the list as it was (the list may have changed since). List again from the start, without a cursor.',
      );
    }
    return offset;
  };

  return <T>(items: T[], cursor: string | undefined): { page: T[]; nextCursor?: string } => {
    const start = offsetOf(cursor, items.length);
    const end = start + pageSize;
    return end < items.length ? { page: items.slice(start, end), nextCursor: cursorAt(end, items.length) } : { page: items.slice(start) };
  };
}

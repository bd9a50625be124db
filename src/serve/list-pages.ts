import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * How many items one page of a list serve answers holds: a host asks again with `nextCursor` for
 * the rest. The v2 client walks at most 64 pages when it lists without a cursor, so a smaller page
 * would leave a host that lists everything at once short of a long list.
 */
export const SERVED_PAGE_SIZE = 500;

/**
 * Pages of a list serve builds for its host. A cursor is the next page's offset, signed with a key
 * of this process: a host cannot make one up (to start past the end, or anywhere else), and one
 * from before a restart is refused. The list itself is built anew for each request from what the
 * caller may see, so a cursor another identity was given reads only the caller's own list.
 */
export function listPager(pageSize = SERVED_PAGE_SIZE) {
  const key = randomBytes(32);
  const signed = (offset: number) => createHmac('sha256', key).update(String(offset)).digest('base64url');
  const cursorAt = (offset: number) => Buffer.from(`${offset}.${signed(offset)}`).toString('base64url');

  const offsetOf = (cursor: string | undefined, length: number): number => {
    if (cursor === undefined) return 0;
    const [text = '', mac = ''] = Buffer.from(cursor.slice(0, 200), 'base64url').toString().split('.');
    const offset = /^[1-9]\d{0,8}$/.test(text) ? Number(text) : undefined;
    const expected = offset === undefined ? undefined : Buffer.from(signed(offset));
    if (offset === undefined || expected === undefined || expected.length !== mac.length || !timingSafeEqual(expected, Buffer.from(mac)) || offset > length) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Unknown cursor: mcp-statechart serve reads only the nextCursor it gave (the list may have changed since, or serve restarted). List again from the start, without a cursor.',
      );
    }
    return offset;
  };

  return <T>(items: T[], cursor: string | undefined): { page: T[]; nextCursor?: string } => {
    const start = offsetOf(cursor, items.length);
    const end = start + pageSize;
    return end < items.length ? { page: items.slice(start, end), nextCursor: cursorAt(end) } : { page: items.slice(start) };
  };
}

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { displayWidth } from '../src/cli/display-width.js';
import { progressRows } from '../src/cli/progress-rows.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, columns: 80, write: (chunk: string) => writes.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

describe("doctor's live progress", () => {
  // The redraw is a terminal's that can do it: these run under whatever TERM the test run has.
  beforeEach(() => vi.stubEnv('TERM', 'xterm-256color'));
  afterEach(() => vi.unstubAllEnvs());

  it('on a terminal: one row per server, redrawn in place with the cursor moved back up', () => {
    const { stream, writes } = fakeStream(true);
    let clock = 0;
    const rows = progressRows(['notes', 'web'], stream, () => clock);
    rows.update('notes', 'connecting…');
    clock = 1_500;
    rows.update('web', 'connecting…');
    rows.update('notes', 'connected in 1500 ms', true);
    rows.finish();

    // The first frame draws both rows; every later frame starts by moving up two lines.
    expect(writes[0]).toBe('\r\x1b[2Knotes  waiting\n\r\x1b[2Kweb    waiting\n');
    expect(writes.slice(1).every((frame) => frame.startsWith('\x1b[2A'))).toBe(true);
    expect(writes.at(-2)).toBe('\x1b[2A\r\x1b[2Knotes  connected in 1500 ms\n\r\x1b[2Kweb    connecting… 0.0s\n');
  });

  it('on a terminal, wide names (CJK, emoji) line up in columns and each row fits the screen, so the redraw stays in place', () => {
    const { stream, writes } = fakeStream(true);
    Object.assign(stream, { columns: 24 });
    const rows = progressRows(['天気予報', '👨‍👩‍👧', 'weather-server'], stream, () => 0);
    rows.finish();
    const drawn = writes[0]!.split('\n').filter((line) => line !== '').map((line) => line.replace('\r\x1b[2K', ''));
    expect(drawn).toEqual(['天気予報        waiting', '👨‍👩‍👧              waiting', 'weather-server  waiting']);
    expect(Math.max(...drawn.map(displayWidth))).toBeLessThanOrEqual(23);
    const narrow = fakeStream(true);
    Object.assign(narrow.stream, { columns: 12 });
    progressRows(['天気予報サーバー'], narrow.stream, () => 0).finish();
    expect(narrow.writes[0]).toBe('\r\x1b[2K天気予報サ…\n');
  });

  it('on a narrow terminal, a long name is cut so that every row still shows its status and clock', () => {
    const { stream, writes } = fakeStream(true);
    Object.assign(stream, { columns: 40 });
    let clock = 0;
    const rows = progressRows(['a-very-long-server-name-that-goes-on-and-on-forever', 'evil'], stream, () => clock);
    rows.update('evil', 'connecting…');
    clock = 7_600;
    rows.update('a-very-long-server-name-that-goes-on-and-on-forever', 'connecting…');
    const drawn = writes.at(-1)!.split('\n').filter((line) => line !== '').map((line) => line.replace(/^(\x1b\[\d+A)?\r\x1b\[2K/, ''));
    expect(drawn).toEqual(['a-very-long-server-n…  connecting… 0.0s', 'evil                   connecting… 7.6s']);
    rows.finish();
  });

  it('on a terminal, finish erases the rows: the report printed next has each server once', () => {
    const { stream, writes } = fakeStream(true);
    const rows = progressRows(['notes', 'web'], stream, () => 0);
    rows.update('notes', 'connected in 3 ms', true);
    rows.finish();
    // Up two rows, erase each, back up to where the first was.
    expect(writes.at(-1)).toBe('\x1b[2A\r\x1b[2K\n\r\x1b[2K\n\x1b[2A');
  });

  it('more rows than the terminal has lines: plain lines, since rows scrolled off cannot be redrawn', () => {
    const { stream, writes } = fakeStream(true);
    Object.assign(stream, { rows: 3 });
    const rows = progressRows(['a', 'b', 'c'], stream);
    rows.update('b', 'connecting…');
    rows.finish();
    expect(writes).toEqual(['b: connecting…\n']);
  });

  it('elsewhere: one plain line per change, no escape sequences', () => {
    const { stream, writes } = fakeStream(false);
    const rows = progressRows(['notes'], stream);
    rows.update('notes', 'connecting…');
    rows.update('notes', 'connecting…');
    rows.update('notes', 'connected in 12 ms', true);
    rows.finish();
    expect(writes).toEqual(['notes: connecting…\n', 'notes: connected in 12 ms\n']);
  });

  it('on a dumb terminal (TERM=dumb, a TTY that shows escapes as text): plain lines, no cursor movement', () => {
    vi.stubEnv('TERM', 'dumb');
    const { stream, writes } = fakeStream(true);
    const rows = progressRows(['notes'], stream);
    rows.update('notes', 'connecting…');
    rows.finish();
    expect(writes).toEqual(['notes: connecting…\n']);
  });

  it('a name with control characters cannot move the cursor', () => {
    const { stream, writes } = fakeStream(false);
    const rows = progressRows(['evil\x1b[2J'], stream);
    rows.update('evil\x1b[2J', 'connecting…');
    expect(writes).toEqual(['evil\\x1b[2J: connecting…\n']);
  });
});

/**
 * Text from config files and servers, made safe to print on a terminal or to put in a line of a
 * tool definition. A name, description, stderr line or error body may carry escape sequences
 * (clear the screen, set the window title, write the clipboard through OSC 52) or a line break
 * that forges a row of a table or a server of load_mcp's list. Every C0 and
 * C1 control character, DEL and the bidirectional overrides (in a one-line field, the invisible
 * marks too) are shown as `\xHH` / `\u{HHHH}` instead. Tool results printed on stdout are the one
 * thing passed through as they are.
 */
import { sliceWithinBudget } from './grapheme-cut.js';
import { nameNote } from './look-alike-names.js';

// C0 except tab and line feed, DEL, C1, line/paragraph separators and the bidi embeddings/isolates.
const CONTROL_IN_BLOCK = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// The same plus tab and line feed: a single-line field (a name, a table cell) has no structure to keep.
// Also the invisible marks (zero-width space, LRM/RLM and the Arabic letter mark, word joiners, BOM):
// "z\u200bw" or "ab\u200fc" printed raw looked exactly like "zw" and "abc", two servers shown the same.
// The zero-width joiner and non-joiner stay: emoji sequences and Persian words need them.
const CONTROL_IN_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** Hebrew, Arabic, Syriac, Thaana, N'Ko and the other right-to-left scripts, with their presentation forms. */
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const FIRST_STRONG_ISOLATE = '\u2068';
const POP_DIRECTIONAL_ISOLATE = '\u2069';
/** An isolate `isolatedForPerson` writes: one pair, on one line, no other bidi control inside. */
const ISOLATE_PAIR = `${FIRST_STRONG_ISOLATE}([^\\n\\r\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]*)${POP_DIRECTIONAL_ISOLATE}`;

const PAIR_OR_CONTROL_IN_BLOCK = new RegExp(`${ISOLATE_PAIR}|${CONTROL_IN_BLOCK.source}`, 'g');
const PAIR_OR_CONTROL_IN_LINE = new RegExp(`${ISOLATE_PAIR}|${CONTROL_IN_LINE.source}`, 'g');

/** `text` with `controls` escaped, but for an isolate pair around right-to-left text, which can only keep that text in its place. */
function escapedKeepingIsolates(text: string, pairOrControl: RegExp, controls: RegExp): string {
  return text.replace(pairOrControl, (found, inside: string | undefined) =>
    inside !== undefined && RIGHT_TO_LEFT.test(inside) ? `${FIRST_STRONG_ISOLATE}${inside.replace(controls, visible)}${POP_DIRECTIONAL_ISOLATE}` : found.replace(controls, visible),
  );
}

/**
 * A name already shown on one line (`terminalLine`, `quoted`'s inside), set apart for a bidi
 * terminal when it holds right-to-left letters: in `عربي, الطقس` the comma between two Arabic
 * names takes their direction, and the list reads in another order. Only for text a person reads:
 * the model reads the characters in order, and would copy the invisible marks into a name it sends.
 */
export function isolatedForPerson(shown: string): string {
  return RIGHT_TO_LEFT.test(shown) ? `${FIRST_STRONG_ISOLATE}${shown}${POP_DIRECTIONAL_ISOLATE}` : shown;
}

const PERSON_ISOLATE = /\u2068([^\u2066-\u2069]*)\u2069/g;

/**
 * Text worded for a person, for a program instead (`--json`): the isolates `isolatedForPerson` set
 * around right-to-left names taken out, so a script reads and compares the names as configured. An
 * isolate a name carries itself was shown escaped, not raw, and stays.
 */
export function withoutPersonIsolates(text: string): string {
  return text.replace(PERSON_ISOLATE, '$1');
}

/**
 * For text that may span lines (a log message, an error body): keeps `\n` and `\t`. An isolate
 * around right-to-left text, as `isolatedForPerson` writes it, stays; any other is shown escaped.
 */
export function terminalText(text: string): string {
  return escapedKeepingIsolates(text, PAIR_OR_CONTROL_IN_BLOCK, CONTROL_IN_BLOCK);
}

/**
 * `terminalText` of `text`, at most `max` characters long: cut before an escape that would not fit
 * whole, and before a character split from its surrogate pair. Reads no further than it keeps.
 */
export function terminalTextWithin(text: string, max: number): string {
  return escapedWithin(text, max, CONTROL_IN_BLOCK);
}

/** `terminalLine` of `text`, at most `max` characters long, cut as `terminalTextWithin` cuts. */
export function terminalLineWithin(text: string, max: number): string {
  return escapedWithin(text, max, CONTROL_IN_LINE);
}

function escapedWithin(text: string, max: number, controls: RegExp): string {
  let shown = '';
  for (const char of text) {
    const piece = char.replace(controls, visible);
    if (shown.length + piece.length > max) break;
    shown += piece;
  }
  return shown;
}

/** For one field on one line (a server name, a table cell): escapes `\n` and `\t` too. */
export function terminalLine(text: string): string {
  return text.replace(CONTROL_IN_LINE, visible);
}

/**
 * A line of a message we wrote (an error, a hint), its names already shown by `terminalLine` or
 * `quoted`: escaped as `terminalLine` escapes, but for the isolates `isolatedForPerson` put around
 * right-to-left names. A name itself goes through `terminalLine`, where every isolate is escaped.
 */
export function terminalMessageLine(text: string): string {
  return escapedKeepingIsolates(text, PAIR_OR_CONTROL_IN_LINE, CONTROL_IN_LINE);
}

/** The most of a name `quoted` shows: enough to tell one apart, never a screenful. */
const QUOTED_NAME_MAX = 120;

/**
 * A name in quotes, on one line, its control characters shown escaped: for a name from a config
 * file, a server or a host inside a message or a log line, where a line break would start a line
 * of its own making and an escape sequence would reach a terminal. A name that is not NFC or mixes
 * look-alike scripts says so after the quotes (look-alike-names.ts).
 */
export function quoted(name: string): string {
  // `"café" (not NFC)`, `"fѕ" (mixed scripts: Cyrillic ѕ U+0455)`: what tells it from a name that prints the same.
  if (name.length <= QUOTED_NAME_MAX) return `"${terminalLine(name)}"${nameNote(name)}`;
  // A name of thousands of characters would bury the message that quotes it (and quote it again in each hint).
  // Cut between whole characters: half of 👨‍👩‍👧‍👦 ends in a dangling joiner or shows another emoji.
  const kept = sliceWithinBudget(name, QUOTED_NAME_MAX);
  return `"${terminalLine(kept)}…" (${name.length.toLocaleString('en-US')} characters)${nameNote(kept)}`;
}

function jsonEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * JSON text (from `JSON.stringify`) with the control characters it leaves as they are (DEL, C1,
 * the line and paragraph separators, the bidi controls) written as `\uHHHH`: it parses to the same
 * value, and shows nothing raw. `JSON.stringify` escapes the rest itself, and outside strings it
 * writes none of them, so every one found is inside a string.
 */
export function jsonWithoutControls(json: string): string {
  return json.replace(CONTROL_IN_LINE, jsonEscape);
}

/** What a POSIX shell reads as one plain word, with nothing to expand: anything else is quoted. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

const HAS_CONTROL_IN_LINE = new RegExp(CONTROL_IN_LINE.source);

const UTF8 = new TextEncoder();

/** A character as the `\xHH` escapes of its UTF-8 bytes: what `$'…'` decodes the same in every locale. */
function utf8Escapes(char: string): string {
  return [...UTF8.encode(char)].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
}

/**
 * A name as a word of a command line we suggest (`mcp-statechart approve <name>`): quoted for a
 * POSIX shell unless plain, so that a name from a file or a server (`x$(curl …)`, `a; rm …`)
 * pasted into a shell is one argument and runs nothing. A name with a control character is
 * written `$'…'` (bash, zsh, ksh), the character as `\xHH`: shown escaped between plain quotes,
 * `'evil\x0a…'` pasted into a shell was another name, and approved nothing.
 */
export function commandWord(word: string): string {
  if (PLAIN_WORD.test(word)) return word;
  if (!HAS_CONTROL_IN_LINE.test(word)) return `'${word.replaceAll("'", `'\\''`)}'`;
  return `$'${word.replace(/[\\']/g, '\\$&').replace(CONTROL_IN_LINE, utf8Escapes)}'`;
}

/**
 * How many terminal columns text takes: a CJK character or an emoji takes two, a combining mark
 * none (it joins the character before it), anything else one. Counting UTF-16 units instead made
 * a table of wide characters wider than the terminal, which then wrapped it. Cells reach here
 * escaped (control-characters.ts), so no control character is left to count.
 */

/** Wide and fullwidth blocks of Unicode's East Asian Width (UAX #11): Hangul Jamo, CJK, Hangul, Kana, fullwidth forms. */
const EAST_ASIAN_WIDE =
  /[\u1100-\u115f\u231a\u231b\u2329\u232a\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{18aff}\u{1b000}-\u{1b2ff}\u{20000}-\u{3fffd}]/u;
/** Shown as an emoji (two columns): by default, or asked for with the emoji variation selector. */
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\ufe0f/u;
/** Text every character of which takes one column: most text, counted without segmenting it. */
const NARROW_ONLY = /^[\x20-\x7e\u00a0-\u02ff]*$/;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** One user-perceived character's columns: a base character with its marks, or an emoji sequence. */
function graphemeWidth(grapheme: string): number {
  const [base = ''] = grapheme;
  if (EAST_ASIAN_WIDE.test(base) || EMOJI.test(grapheme)) return 2;
  return /^\p{M}+$/u.test(grapheme) ? 0 : 1;
}

export function displayWidth(text: string): number {
  if (NARROW_ONLY.test(text)) return text.length;
  let width = 0;
  for (const { segment } of graphemes.segment(text)) width += graphemeWidth(segment);
  return width;
}

/** `text` in at most `width` columns: cut before the character that would not fit, with `…` in the last column. */
export function cutToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const next = graphemeWidth(segment);
    if (used + next > width - 1) break;
    kept += segment;
    used += next;
  }
  return `${kept}…`;
}

/** `text` followed by spaces up to `width` columns. */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(width - displayWidth(text), 0));
}

/**
 * `text` as lines of at most `width` columns, broken at spaces: a terminal left to wrap a long
 * line breaks it mid-word. A word wider than a line is itself broken, so no line is wider.
 */
export function wrapToWidth(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const joined = line === '' ? word : `${line} ${word}`;
    if (displayWidth(joined) <= width) {
      line = joined;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    for (const { segment } of graphemes.segment(word)) {
      if (line !== '' && displayWidth(line + segment) > width) {
        lines.push(line);
        line = '';
      }
      line += segment;
    }
  }
  lines.push(line);
  return lines;
}

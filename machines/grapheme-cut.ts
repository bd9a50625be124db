/** Cutting text at a length without splitting what a reader sees as one character. */

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/**
 * How far back a cut looks for the start of the character it falls in: an emoji ZWJ sequence
 * (👨‍👩‍👧‍👦 is 11 units) or a letter with its accents fits; a longer run of marks is cut inside.
 */
const GRAPHEME_LOOKBACK = 64;

/**
 * The first `max` UTF-16 units of `text`, ending before the user-perceived character the cut
 * would split: half of 👨‍👩‍👧‍👦 shows another emoji (or a dangling joiner), half of a flag a boxed
 * letter, `cafe` + U+0301 cut after the `e` silently reads "cafe". Never a lone surrogate.
 */
export function sliceWithinBudget(text: string, max: number): string {
  if (text.length <= max) return text;
  const from = Math.max(0, max - GRAPHEME_LOOKBACK);
  let end = -1;
  // Only the units around the cut are segmented: the text may be megabytes.
  for (const { index } of graphemes.segment(text.slice(from, max + GRAPHEME_LOOKBACK))) {
    if (from + index > max) break;
    if (index > 0 || from === 0) end = from + index;
  }
  if (end < 0) {
    const last = text.charCodeAt(max - 1);
    end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  }
  return text.slice(0, Math.max(end, 0));
}

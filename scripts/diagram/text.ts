/**
 * Text sizes without a browser. The layout needs the size of every label before anything is
 * drawn, so the widths come from a table: DejaVu Sans advance widths (per 1000 em units, read
 * from the font Debian's Chromium renders with). Verdana and Bitstream Vera, the fallbacks the
 * SVG names, have nearly the same widths; `SAFETY` covers the difference. Characters outside
 * the table count as a full em, so an estimate errs on the wide side.
 */

/** The font stack written into every SVG: local fonts only, nothing fetched. */
export const FONT_FAMILY = "'DejaVu Sans', Verdana, 'Bitstream Vera Sans', sans-serif";

/** U+0020 … U+007E, regular. */
const REGULAR = [
  318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337,
  838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684,
  989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635,
  411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
];
/** U+0020 … U+007E, bold. */
const BOLD = [
  348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400,
  400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812,
  774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716,
  716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
];
/** The few symbols the diagrams use, the same in both weights. */
const SYMBOLS: Record<string, number> = { '→': 838, '↻': 838, '·': 318, '…': 1000 };
const SAFETY = 1.05;

export interface TextStyle {
  size: number;
  bold?: boolean;
}

export function textWidth(text: string, style: TextStyle): number {
  const table = style.bold ? BOLD : REGULAR;
  let units = 0;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    units += code >= 0x20 && code <= 0x7e ? table[code - 0x20]! : (SYMBOLS[character] ?? 1000);
  }
  return (units / 1000) * style.size * SAFETY;
}

/** Breaks `text` at spaces into lines no wider than `maxWidth` (a single longer word keeps its own line). */
export function wrap(text: string, style: TextStyle, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && textWidth(candidate, style) > maxWidth) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line) lines.push(line);
  return lines;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

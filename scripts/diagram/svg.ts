/**
 * Draws a laid-out chart as a self-contained SVG: local fonts only, no external reference, a
 * white background, so it looks the same offline, on the repository page and in the live view
 * (src/view), which highlights states by their `data-state` path.
 */
import type { BoxLine, ChartLayout, PlacedEdge, PlacedState } from './layout.js';
import { LABEL_LINE_HEIGHT, LABEL_PAD_X, LABEL_PAD_Y, LINE_HEIGHT, PAD_X, PAD_Y, SECTION_GAP, STYLE, TITLE_HEIGHT } from './layout.js';
import { escapeXml, FONT_FAMILY } from './text.js';

const COLORS = {
  text: '#1f2328',
  soft: '#59636e',
  event: '#0550ae',
  edge: '#6e7781',
  border: '#57606a',
  compoundBorder: '#8c959f',
  fills: ['#f6f8fa', '#eaf1fb', '#ffffff'],
  leaf: '#ffffff',
};
/** From the top of a line box to the baseline of its text: DejaVu Sans' ascent, rounded. */
const BASELINE = 0.8;

const n = (value: number) => String(Math.round(value * 10) / 10);

function textLine(x: number, y: number, line: BoxLine): string {
  const size = line.kind === 'description' ? STYLE.description.size : STYLE.note.size;
  const style = line.kind === 'description' ? ' font-style="italic"' : '';
  const strong = line.strong ? `<tspan fill="${COLORS.text}">${escapeXml(line.strong)}</tspan>` : '';
  const soft = line.soft ? `<tspan fill="${COLORS.soft}">${escapeXml(line.soft)}</tspan>` : '';
  return `<text class="${line.kind}" x="${n(x)}" y="${n(y)}" font-size="${size}"${style} xml:space="preserve">${strong}${soft}</text>`;
}

function drawState(state: PlacedState): string {
  const { x, y, width, height, header } = state;
  const leaf = state.state.children.length === 0;
  const fill = leaf ? COLORS.leaf : COLORS.fills[Math.min(state.depth, COLORS.fills.length - 1)]!;
  const stroke = leaf ? COLORS.border : COLORS.compoundBorder;
  const radius = leaf ? 8 : 10;
  const parts = [
    `<rect class="box" x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${n(height)}" rx="${radius}" fill="${fill}" stroke="${stroke}" stroke-width="1.2"/>`,
  ];
  if (state.state.kind === 'final') {
    parts.push(`<rect x="${n(x + 3)}" y="${n(y + 3)}" width="${n(width - 6)}" height="${n(height - 6)}" rx="${radius - 2}" fill="none" stroke="${stroke}"/>`);
  }
  if (state.state.kind === 'parallel') parts[0] = parts[0]!.replace('stroke-width="1.2"', 'stroke-width="1.2" stroke-dasharray="6 4"');
  let top = header.y + PAD_Y;
  parts.push(
    `<text class="title" x="${n(header.x + PAD_X)}" y="${n(top + TITLE_HEIGHT * BASELINE)}" font-size="${STYLE.title.size}" font-weight="bold" fill="${COLORS.text}">${escapeXml(state.state.title)}</text>`,
  );
  top += TITLE_HEIGHT;
  let previous: BoxLine['kind'] | undefined;
  for (const line of state.lines) {
    if (line.kind !== previous) top += SECTION_GAP;
    if (line.kind === 'note' && previous !== 'note') {
      parts.push(`<line x1="${n(header.x + PAD_X)}" y1="${n(top - SECTION_GAP / 2)}" x2="${n(header.x + header.width - PAD_X)}" y2="${n(top - SECTION_GAP / 2)}" stroke="#d0d7de"/>`);
    }
    previous = line.kind;
    parts.push(textLine(header.x + PAD_X, top + LINE_HEIGHT * BASELINE, line));
    top += LINE_HEIGHT;
  }
  return `<g class="state" data-state="${escapeXml(state.state.path)}" data-kind="${state.state.kind}">${parts.join('')}</g>`;
}

function drawEdge(edge: PlacedEdge): string {
  const d = edge.points.map((point, index) => `${index === 0 ? 'M' : 'L'}${n(point.x)} ${n(point.y)}`).join(' ');
  return `<path class="edge" data-source="${escapeXml(edge.source)}" data-target="${escapeXml(edge.target)}" d="${d}" fill="none" stroke="${COLORS.edge}" stroke-width="1.3" marker-end="url(#arrow)"/>`;
}

function labelLine(text: string): string {
  const guard = text.indexOf(' [');
  const trigger = guard === -1 ? text : text.slice(0, guard);
  const rest = guard === -1 ? '' : `<tspan fill="${COLORS.soft}">${escapeXml(text.slice(guard))}</tspan>`;
  return `<tspan fill="${COLORS.event}">${escapeXml(trigger)}</tspan>${rest}`;
}

function drawLabel(edge: PlacedEdge): string {
  const label = edge.label;
  if (!label) return '';
  const lines = label.lines.map(
    (line, index) =>
      `<text x="${n(label.x + LABEL_PAD_X)}" y="${n(label.y + LABEL_PAD_Y + index * LABEL_LINE_HEIGHT + LABEL_LINE_HEIGHT * BASELINE)}" font-size="${STYLE.label.size}" xml:space="preserve">${labelLine(line)}</text>`,
  );
  return `<g class="label" data-source="${escapeXml(edge.source)}" data-target="${escapeXml(edge.target)}"><rect class="label-box" x="${n(label.x)}" y="${n(label.y)}" width="${n(label.width)}" height="${n(label.height)}" rx="3" fill="#ffffff" fill-opacity="0.92"/>${lines.join('')}</g>`;
}

export function renderChartSvg(layout: ChartLayout, title: string): string {
  const { width, height } = layout;
  const initials = layout.initials.map(
    (dot) => `<circle class="initial" data-state="${escapeXml(dot.parent)}" cx="${n(dot.x + dot.width / 2)}" cy="${n(dot.y + dot.height / 2)}" r="${n(dot.width / 2 - 1)}" fill="${COLORS.text}"/>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="${escapeXml(FONT_FAMILY)}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="${COLORS.edge}"/></marker></defs>`,
    `<rect class="background" width="${width}" height="${height}" fill="#ffffff"/>`,
    ...layout.states.map(drawState),
    ...layout.edges.map(drawEdge),
    ...initials,
    ...layout.edges.map(drawLabel).filter(Boolean),
    '</svg>',
    '',
  ].join('\n');
}

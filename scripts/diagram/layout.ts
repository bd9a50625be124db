/**
 * Places a chart with ELK's layered algorithm over the whole hierarchy (as Stately's editor
 * does): compound states are ELK nodes that hold their children, each box is sized from the
 * text written in it, and edge labels are ELK labels so the layout keeps them clear of boxes
 * and of each other. Coordinates come back absolute (ROOT), ready to draw.
 */
import { createRequire } from 'node:module';
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { ChartModel, ChartState } from './chart-model.js';
import { textWidth, wrap, type TextStyle } from './text.js';

// elkjs is CommonJS: its module.exports is the constructor that its types call `default`.
const ELK = createRequire(import.meta.url)('elkjs/lib/elk.bundled.js') as typeof import('elkjs/lib/elk-api.js').default;

export const STYLE = {
  title: { size: 14, bold: true },
  description: { size: 12 },
  note: { size: 12 },
  label: { size: 12 },
} satisfies Record<string, TextStyle>;

export const LINE_HEIGHT = 16;
export const TITLE_HEIGHT = 20;
export const PAD_X = 10;
export const PAD_Y = 8;
export const SECTION_GAP = 4;
const DESCRIPTION_WIDTH = 250;
const NOTE_WIDTH = 300;
const MIN_STATE_WIDTH = 96;
const CHILD_PADDING = 14;
/** Space between a compound state's top border and its header: room for the edges that enter it. */
const HEADER_INSET = 4;
export const LABEL_PAD_X = 4;
export const LABEL_PAD_Y = 2;
export const LABEL_LINE_HEIGHT = 15;
export const INITIAL_SIZE = 12;
const MARGIN = 16;

/** One line of text inside a box: `strong` in the text colour, `soft` after it in grey. */
export interface BoxLine {
  strong: string;
  soft?: string;
  kind: 'description' | 'note';
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedState extends Rect {
  state: ChartState;
  lines: BoxLine[];
  /** Where the title and lines are written: the whole box for a leaf, the top band for a compound state. */
  header: Rect;
  depth: number;
}

export interface PlacedLabel extends Rect {
  lines: string[];
}

export interface PlacedEdge {
  source: string;
  target: string;
  /** The polyline from the source's border to the target's border. */
  points: Array<{ x: number; y: number }>;
  label?: PlacedLabel;
  /** The arrow from a compound state's initial dot to its initial child. */
  initial: boolean;
}

export interface ChartLayout {
  width: number;
  height: number;
  states: PlacedState[];
  initials: Array<Rect & { parent: string }>;
  edges: PlacedEdge[];
}

function boxLines(state: ChartState): BoxLine[] {
  const lines: BoxLine[] = [];
  for (const line of state.description ? wrap(state.description, STYLE.description, DESCRIPTION_WIDTH) : []) {
    lines.push({ strong: '', soft: line, kind: 'description' });
  }
  for (const note of state.notes) {
    if (note.kind === 'heading') {
      for (const part of wrap(note.what, STYLE.note, NOTE_WIDTH)) lines.push({ strong: part, kind: 'note' });
      continue;
    }
    // A branch of a guard chain sits under its heading.
    const indent = note.kind === 'branch' ? '   ' : '';
    const whole = note.effect ? `${note.what} / ${note.effect}` : note.what;
    if (textWidth(whole, STYLE.note) <= NOTE_WIDTH || !note.effect) {
      lines.push({ strong: `${indent}${note.what}`, soft: note.effect ? ` / ${note.effect}` : undefined, kind: 'note' });
      continue;
    }
    lines.push({ strong: `${indent}${note.what}`, kind: 'note' });
    for (const part of wrap(`/ ${note.effect}`, STYLE.note, NOTE_WIDTH - 12)) lines.push({ strong: '', soft: `${indent}   ${part}`, kind: 'note' });
  }
  return lines;
}

function lineWidth(line: BoxLine): number {
  const style = line.kind === 'description' ? STYLE.description : STYLE.note;
  return textWidth(line.strong, style) + textWidth(line.soft ?? '', style);
}

/** The size of a box's title and lines, with padding. */
function headerSize(state: ChartState, lines: BoxLine[]): { width: number; height: number } {
  const widest = Math.max(textWidth(state.title, STYLE.title), ...lines.map(lineWidth));
  const hasDescription = lines.some((line) => line.kind === 'description');
  const hasNotes = lines.some((line) => line.kind === 'note');
  const gaps = (hasDescription ? SECTION_GAP : 0) + (hasNotes ? SECTION_GAP : 0);
  return { width: Math.ceil(widest + 2 * PAD_X), height: Math.ceil(TITLE_HEIGHT + lines.length * LINE_HEIGHT + gaps + 2 * PAD_Y) };
}

const elkId = (path: string) => `state:${path}`;
const initialId = (path: string) => `initial:${path}`;
const headerId = (path: string) => `header:${path}`;

function toElkNode(state: ChartState, lines: Map<string, BoxLine[]>): ElkNode {
  const text = boxLines(state);
  lines.set(state.path, text);
  const header = headerSize(state, text);
  if (state.children.length === 0) {
    return { id: elkId(state.path), width: Math.max(MIN_STATE_WIDTH, header.width), height: header.height };
  }
  const children = state.children.map((child) => toElkNode(child, lines));
  if (state.initial !== undefined) children.unshift({ id: initialId(state.path), width: INITIAL_SIZE, height: INITIAL_SIZE });
  // The title and lines of a compound state are a node of its own in the first layer, so ELK
  // routes the edges that enter the state around the text instead of through it.
  children.unshift({
    id: headerId(state.path),
    width: header.width,
    height: header.height,
    layoutOptions: { 'elk.layered.layering.layerConstraint': 'FIRST', 'elk.layered.crossingMinimization.positionChoiceConstraint': '0' },
  });
  return {
    id: elkId(state.path),
    layoutOptions: { 'elk.padding': `[top=${HEADER_INSET},left=${CHILD_PADDING},bottom=${CHILD_PADDING},right=${CHILD_PADDING}]` },
    children,
  };
}

export function labelSize(lines: string[]): { width: number; height: number } {
  const widest = Math.max(...lines.map((line) => textWidth(line, STYLE.label)));
  return { width: Math.ceil(widest + 2 * LABEL_PAD_X), height: lines.length * LABEL_LINE_HEIGHT + 2 * LABEL_PAD_Y };
}

/**
 * Edges that are laid out but not drawn: from a parallel state's header to each region, so the
 * regions sit side by side under the header instead of in one row with it.
 */
function regionEdges(state: ChartState): ElkExtendedEdge[] {
  const own = state.kind === 'parallel' ? state.children.map((child) => ({ id: `edge:region:${child.path}`, sources: [headerId(state.path)], targets: [elkId(child.path)] })) : [];
  return [...own, ...state.children.flatMap(regionEdges)];
}

function initialEdges(state: ChartState): ElkExtendedEdge[] {
  const own: ElkExtendedEdge[] =
    state.initial === undefined ? [] : [{ id: `edge:initial:${state.path}`, sources: [initialId(state.path)], targets: [elkId(state.initial)] }];
  return [...own, ...state.children.flatMap(initialEdges)];
}

const LAYOUT_OPTIONS = {
  'elk.algorithm': 'layered',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.direction': 'DOWN',
  'elk.json.shapeCoords': 'ROOT',
  'elk.json.edgeCoords': 'ROOT',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.edgeLabels.placement': 'CENTER',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  'elk.layered.spacing.nodeNodeBetweenLayers': '36',
  'elk.layered.spacing.edgeNodeBetweenLayers': '14',
  'elk.spacing.nodeNode': '22',
  'elk.spacing.edgeNode': '12',
  'elk.spacing.edgeEdge': '8',
  'elk.spacing.edgeLabel': '3',
  'elk.padding': `[top=${MARGIN},left=${MARGIN},bottom=${MARGIN},right=${MARGIN}]`,
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
};

type Point = { x: number; y: number };

/** The child of `parent` that `path` lies in (or is), or undefined when `path` is not below `parent`. */
function childOn(parent: ChartState, path: string): ChartState | undefined {
  return parent.children.find((child) => path === child.path || path.startsWith(`${child.path}.`));
}

/**
 * The edges that go "back" in the chart's own reading order. Among the children of one state,
 * the order is breadth-first from its initial child (ties: the order in the chart file); an
 * edge whose source comes later than its target, at the level where they part, goes back.
 * ELK lays out such an edge reversed, so the lifecycle reads from top to bottom (disconnected,
 * connecting, connected, error) instead of wherever ELK's cycle breaking would put it.
 */
function backEdges(model: ChartModel): Set<number> {
  const back = new Set<number>();
  const visit = (parent: ChartState) => {
    const lifted = model.edges.map((edge) => [childOn(parent, edge.source), childOn(parent, edge.target)] as const);
    const rank = new Map<ChartState, number>();
    const first = parent.children.find((child) => child.path === parent.initial);
    const queue = first ? [first] : [];
    if (first) rank.set(first, 0);
    while (queue.length > 0) {
      const from = queue.shift()!;
      for (const [source, target] of lifted) {
        if (source === from && target && !rank.has(target)) {
          rank.set(target, rank.get(from)! + 1);
          queue.push(target);
        }
      }
    }
    const order = (state: ChartState) => [rank.get(state) ?? Number.POSITIVE_INFINITY, parent.children.indexOf(state)] as const;
    lifted.forEach(([source, target], index) => {
      if (!source || !target || source === target || !rank.has(source) || !rank.has(target)) return;
      const [sourceRank, sourceIndex] = order(source);
      const [targetRank, targetIndex] = order(target);
      if (sourceRank > targetRank || (sourceRank === targetRank && sourceIndex > targetIndex)) back.add(index);
    });
    parent.children.forEach(visit);
  };
  visit(model.root);
  return back;
}
const round = (value: number) => Math.round(value * 10) / 10;

export async function layoutChart(model: ChartModel): Promise<ChartLayout> {
  const lines = new Map<string, BoxLine[]>();
  const back = backEdges(model);
  const edges: ElkExtendedEdge[] = [
    ...initialEdges(model.root),
    ...regionEdges(model.root),
    ...model.edges.map((edge, index) => ({
      id: `edge:${index}`,
      sources: [elkId(back.has(index) ? edge.target : edge.source)],
      targets: [elkId(back.has(index) ? edge.source : edge.target)],
      labels: [{ id: `label:${index}`, text: edge.labels.join('\n'), ...labelSize(edge.labels) }],
    })),
  ];
  const graph: ElkNode = { id: 'graph', layoutOptions: LAYOUT_OPTIONS, children: [toElkNode(model.root, lines)], edges };
  const placed = await new ELK().layout(graph);

  const byId = new Map<string, ElkNode>();
  const collect = (node: ElkNode) => {
    byId.set(node.id, node);
    for (const child of node.children ?? []) collect(child);
  };
  collect(placed);
  const rect = (node: { x?: number; y?: number; width?: number; height?: number }): Rect => ({ x: round(node.x ?? 0), y: round(node.y ?? 0), width: round(node.width ?? 0), height: round(node.height ?? 0) });

  const states: PlacedState[] = [];
  const initials: ChartLayout['initials'] = [];
  const place = (state: ChartState, depth: number) => {
    const box = rect(byId.get(elkId(state.path))!);
    const text = lines.get(state.path)!;
    const header = state.children.length === 0 ? box : rect(byId.get(headerId(state.path))!);
    states.push({ ...box, state, lines: text, header, depth });
    if (state.initial !== undefined) initials.push({ ...rect(byId.get(initialId(state.path))!), parent: state.path });
    for (const child of state.children) place(child, depth + 1);
  };
  place(model.root, 0);

  const drawn = (placed.edges ?? []).filter((edge) => !edge.id.startsWith('edge:region:'));
  const placedEdges: PlacedEdge[] = drawn.map((edge) => {
    const points: Point[] = (edge.sections ?? []).flatMap((section) => [section.startPoint, ...(section.bendPoints ?? []), section.endPoint]);
    const label = edge.labels?.[0];
    const initial = edge.id.startsWith('edge:initial:');
    const index = initial ? -1 : Number(edge.id.slice('edge:'.length));
    const chartEdge = model.edges[index];
    if (back.has(index)) points.reverse();
    return {
      source: chartEdge?.source ?? edge.id.slice('edge:initial:'.length),
      target: chartEdge?.target ?? (edge.targets[0] ?? '').slice('state:'.length),
      points: points.map((point) => ({ x: round(point.x), y: round(point.y) })),
      label: label && chartEdge ? { ...rect(label), lines: chartEdge.labels } : undefined,
      initial,
    };
  });
  return { width: Math.ceil(placed.width ?? 0), height: Math.ceil(placed.height ?? 0), states, initials, edges: placedEdges };
}

/**
 * The `@xstate-layout` header Stately Studio writes into a chart file, so the chart opens laid
 * out: `/** @xstate-layout <text> *\/` as the first line of the `createMachine` config, where
 * the text is lz-string's `compressToEncodedURIComponent` of
 * `{ edges: { '<state id>#<event>[<index>]': { position } }, nodes: { '<state id>': { position } } }`
 * in absolute coordinates. Here the positions are those of our own ELK layout: a state's box,
 * a transition's label line (for one written inside its box, just right of the box).
 */
import lz from 'lz-string';
import type { AnyStateMachine } from 'xstate';
import { guardOf, triggerOf } from './chart-model.js';
import { LABEL_LINE_HEIGHT, LABEL_PAD_X, LABEL_PAD_Y, LINE_HEIGHT, type ChartLayout } from './layout.js';

type StateNode = AnyStateMachine['root'];
type Position = { x: number; y: number };

export interface StudioLayout {
  edges: Record<string, { position: Position }>;
  nodes: Record<string, { position: Position }>;
}

/** The header as it stands in a chart file; group 1 is the encoded layout. */
export const LAYOUT_HEADER = /\/\*\* @xstate-layout (\S+) \*\//g;

const pathOf = (node: StateNode) => node.path.join('.');

function allStateNodes(node: StateNode): StateNode[] {
  return [node, ...Object.values(node.states).flatMap(allStateNodes)];
}

export function studioLayout(machine: AnyStateMachine, layout: ChartLayout): StudioLayout {
  const boxes = new Map(layout.states.map((state) => [state.state.path, state]));
  const arrows = new Map(layout.edges.filter((edge) => !edge.initial).map((edge) => [`${edge.source} -> ${edge.target}`, edge]));
  const nodes: StudioLayout['nodes'] = {};
  const edges: StudioLayout['edges'] = {};
  for (const node of allStateNodes(machine.root)) {
    const box = boxes.get(pathOf(node))!;
    nodes[node.id] = { position: { x: box.x, y: box.y } };
    let inside = 0;
    for (const [event, transitions] of node.transitions) {
      transitions.forEach((transition, index) => {
        const target = transition.target?.find((candidate) => candidate !== node);
        const label = target && arrows.get(`${pathOf(node)} -> ${pathOf(target)}`)?.label;
        const position = label
          ? { x: label.x + LABEL_PAD_X, y: label.y + LABEL_PAD_Y + Math.max(0, label.lines.indexOf(`${triggerOf(transition)}${guardOf(transition)}`)) * LABEL_LINE_HEIGHT }
          : { x: box.x + box.width + LABEL_PAD_X, y: box.y + LINE_HEIGHT * inside++ };
        edges[`${node.id}#${event}[${index}]`] = { position };
      });
    }
  }
  return { edges, nodes };
}

export function encodeStudioLayout(layout: StudioLayout): string {
  return lz.compressToEncodedURIComponent(JSON.stringify(layout));
}

export function decodeStudioLayout(encoded: string): StudioLayout {
  const json = lz.decompressFromEncodedURIComponent(encoded);
  if (!json) throw new Error('not an lz-string layout');
  return JSON.parse(json) as StudioLayout;
}

/** The chart file with its header replaced, or placed as the first line of the `createMachine` config. */
export function withLayoutHeader(source: string, encoded: string): string {
  const header = `/** @xstate-layout ${encoded} */`;
  if (source.match(LAYOUT_HEADER)) return source.replace(LAYOUT_HEADER, () => header);
  const opening = /\}\)\.createMachine\(\{\n/;
  if (!opening.test(source)) throw new Error('no `}).createMachine({` line to put the @xstate-layout header under');
  return source.replace(opening, (line) => `${line}  ${header}\n`);
}

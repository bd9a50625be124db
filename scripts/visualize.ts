/**
 * `npm run visualize`: regenerates visualizations/ from the charts in machines/ — per machine a
 * Mermaid state diagram (.mmd), its SVG (rendered in Node by beautiful-mermaid, no browser),
 * the machine JSON (.json), and a README that shows them. Everything is a pure function of the
 * charts, so test/visualizations.test.ts can regenerate in memory and catch drift.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { renderMermaidSVG } from 'beautiful-mermaid';
import type { AnyStateMachine } from 'xstate';
import { toDirectedGraph, type DirectedGraphEdge, type DirectedGraphNode } from 'xstate/graph';
import { registryMachine } from '../machines/registry.machine.js';
import { serverMachine } from '../machines/server.machine.js';

export interface ChartSource {
  /** The base name of the generated files. */
  name: string;
  /** Where the chart lives, relative to the repository root (for links and Studio). */
  file: string;
  machine: AnyStateMachine;
  summary: string;
}

export const CHARTS: ChartSource[] = [
  {
    name: 'server',
    file: 'machines/server.machine.ts',
    machine: serverMachine,
    summary: 'The lifecycle of one MCP server connection (DESIGN §3).',
  },
  {
    name: 'registry',
    file: 'machines/registry.machine.ts',
    machine: registryMachine,
    summary: 'The registry that spawns server actors lazily and routes the DESIGN §4 events.',
  },
];

export const VISUALIZATIONS_DIR = fileURLToPath(new URL('../visualizations/', import.meta.url));

// ---- Mermaid ----------------------------------------------------------------------------

type StateNode = DirectedGraphNode['stateNode'];
type Transition = DirectedGraphEdge['transition'];

/** Mermaid state ids allow word characters only (beautiful-mermaid: `[\w]` for composites). */
function mermaidId(node: StateNode): string {
  return node.path.join('__');
}

function nameOf(reference: unknown, fallback: string): string {
  if (typeof reference === 'string') return reference;
  if (reference && typeof reference === 'object' && 'type' in reference && typeof reference.type === 'string') {
    return reference.type;
  }
  return fallback;
}

function actorName(id: string): string {
  return id === '*' ? 'any child' : id;
}

/** The event that triggers a transition, in words: delays and invoke outcomes read as such. */
function triggerOf(transition: Transition): string {
  const type = transition.eventType;
  if (!type) return 'always';
  // Only the delayed transitions (`after`) carry their delay: a name, milliseconds or an inline function.
  const delay = (transition as { delay?: unknown }).delay;
  if (delay !== undefined) {
    return typeof delay === 'number' ? `after ${delay} ms` : typeof delay === 'string' ? `after ${delay}` : 'after inline delay';
  }
  const done = /^xstate\.done\.actor\.(.+)$/.exec(type);
  if (done) return `${actorName(done[1]!)} done`;
  const error = /^xstate\.error\.actor\.(.+)$/.exec(type);
  if (error) return `${actorName(error[1]!)} error`;
  return type === '*' ? 'any event' : type;
}

/** `trigger [guard] / actions`, the UML transition label. */
export function edgeLabel(transition: Transition): string {
  const guard = transition.guard === undefined ? '' : ` [${nameOf(transition.guard, 'inline guard')}]`;
  const actions = transition.actions.map((action) => nameOf(action, 'inline action'));
  const effect = actions.length > 0 ? ` / ${actions.join(', ')}` : '';
  const reenter = transition.reenter ? ' (reenter)' : '';
  // Mermaid ends a statement at ';' and reads '#' as an entity: keep labels free of them.
  return `${triggerOf(transition)}${guard}${effect}${reenter}`.replace(/[;#]/g, ' ');
}

function allNodes(graph: DirectedGraphNode): DirectedGraphNode[] {
  return [graph, ...graph.children.flatMap(allNodes)];
}

function declareStates(graph: DirectedGraphNode, indent: string): string[] {
  const lines: string[] = [];
  for (const child of graph.children) {
    const id = mermaidId(child.stateNode);
    if (child.children.length === 0) {
      lines.push(`${indent}state "${child.stateNode.key}" as ${id}`);
      if (child.stateNode.type === 'final') lines.push(`${indent}${id} --> [*]`);
      continue;
    }
    lines.push(`${indent}state "${child.stateNode.key}" as ${id} {`);
    lines.push(...declareStates(child, `${indent}  `));
    lines.push(`${indent}}`);
  }
  // After the declarations: beautiful-mermaid names a state after its first mention.
  const initial = graph.stateNode.initial?.target[0];
  if (initial) lines.push(`${indent}[*] --> ${mermaidId(initial)}`);
  return lines;
}

/**
 * A `stateDiagram-v2` from `toDirectedGraph(machine)`: nested states become composite states,
 * every edge keeps its delay, guard, invoke outcome and actions in the label. All states are
 * declared before any edge, so an edge never pulls a state into the wrong composite.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const graph = toDirectedGraph(machine);
  const root = machine.root;
  const lines = ['stateDiagram-v2', `  %% Generated from machine "${root.id}" by scripts/visualize.ts; do not edit.`];
  lines.push(...declareStates(graph, '  '));
  // The root cannot be drawn as a state, so events it handles in every state get a stand-in.
  const anyState = `${root.id}__any`;
  // Parallel edges (same source and target) share one arrow, one transition per label line:
  // sixteen self-loops on the registry's only state would otherwise fill the picture.
  const arrows = new Map<string, string[]>();
  const idOf = (node: StateNode) => (node === root ? anyState : mermaidId(node));
  const draw = (source: StateNode, target: StateNode, transition: Transition) => {
    const key = `${idOf(source)} --> ${idOf(target)}`;
    arrows.set(key, [...(arrows.get(key) ?? []), edgeLabel(transition)]);
  };
  for (const node of allNodes(graph)) {
    for (const edge of node.edges) draw(edge.source, edge.target, edge.transition);
    // toDirectedGraph leaves out eventless (`always`) transitions; draw them too.
    for (const transition of node.stateNode.always ?? []) draw(node.stateNode, transition.target?.[0] ?? node.stateNode, transition);
  }
  if ([...arrows.keys()].some((arrow) => arrow.startsWith(`${anyState} `))) {
    lines.push(`  state "any state (unless handled)" as ${anyState}`);
  }
  for (const [arrow, labels] of arrows) lines.push(`  ${arrow} : ${labels.join('<br/>')}`);
  return `${lines.join('\n')}\n`;
}

// ---- SVG ---------------------------------------------------------------------------------

export function toSvg(mermaid: string): string {
  const svg = renderMermaidSVG(mermaid, { bg: '#ffffff', fg: '#1f2328', font: 'Inter' });
  return svg.endsWith('\n') ? svg : `${svg}\n`;
}

// ---- JSON --------------------------------------------------------------------------------

const DROPPED = Symbol('dropped');

/** Sorts object keys and removes the markers left where functions were. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== DROPPED).map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== DROPPED)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, item]) => [key, sortKeys(item)] as const);
  return Object.fromEntries(entries);
}

/**
 * Plain data with sorted keys: the usual `toJSON()` conversion, minus every function (context
 * factories, invoke inputs, action params), so the file only changes when the chart does.
 */
export function toStableData(value: unknown): unknown {
  // JSON.stringify would turn a function inside an array into null; mark it and drop it instead.
  const marked = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'function' ? '\u0000function' : item));
  const parsed: unknown = JSON.parse(marked, (_key, item: unknown) => (item === '\u0000function' ? DROPPED : item));
  return sortKeys(parsed);
}

export function toMachineJson(machine: AnyStateMachine): string {
  return `${JSON.stringify(toStableData(machine.toJSON()), null, 2)}\n`;
}

// ---- README ------------------------------------------------------------------------------

function readme(diagrams: Array<{ chart: ChartSource; mermaid: string }>): string {
  const sections = diagrams.map(
    ({ chart, mermaid }) => `## ${chart.name}

${chart.summary} Source: [\`${chart.file}\`](../${chart.file}).
Files: [\`${chart.name}.svg\`](./${chart.name}.svg) (rendered without a browser),
[\`${chart.name}.mmd\`](./${chart.name}.mmd), [\`${chart.name}.json\`](./${chart.name}.json) (\`machine.toJSON()\`).

![${chart.name} chart](./${chart.name}.svg)

\`\`\`mermaid
${mermaid.trimEnd()}
\`\`\`
`,
  );
  return `# Visualizations

Generated from [\`machines/\`](../machines) by \`npm run visualize\` (scripts/visualize.ts); never
edit by hand. \`test/visualizations.test.ts\` fails when these files and the charts disagree.

Reading the diagrams: an edge label is \`trigger [guard] / actions\`. \`after backoff\` is a named
delay, \`always\` an eventless transition (taken as soon as its guard holds), \`connect done\` /
\`connect error\` are the outcomes of the invoked actor \`connect\`, and \`(reenter)\` restarts the
target state. An edge from a state to itself without \`(reenter)\` is a targetless transition: it
runs its actions and leaves the state (and its timers) alone. Transitions that share a source and
a target share one arrow, one per line of its label. Where one event has several guarded
transitions, the first in the chart file whose guard passes is taken. "any state (unless handled)"
stands for the machine root: its events apply in every state that does not handle them itself.

${sections.join('\n')}
## Open in Stately Studio

Each chart file is a plain \`setup({...}).createMachine({...})\`: every action, guard, delay and
actor is declared in \`setup\` and referenced from the chart by its name (a string), and the file
does no I/O. The real effects are supplied later with \`.provide()\`
(src/connection/server-logic.ts). That is the shape Stately Studio's code import reads.

1. Open the Stately editor, <https://stately.ai/editor>, and start a new machine.
2. Choose **Import from code**.
3. Paste the whole content of [\`machines/server.machine.ts\`](../machines/server.machine.ts) or
   [\`machines/registry.machine.ts\`](../machines/registry.machine.ts) as it is, imports included.

States, transitions, guards, delays and invokes come in by name. The few inline functions (the
\`context\` factory, invoke \`input\`, computed action \`params\`) are code, not chart structure.

Paste a chart file, not this folder's JSON: \`*.json\` is XState's \`machine.toJSON()\` (for
tooling and diffs), not Studio's import format.

Why these tools: the project runs XState v5. The older \`@xstate/inspect\` and \`@xstate/test\`
only work with XState v4, and \`@xstate/graph\` is deprecated. So live inspection uses
\`@statelyai/inspect\`: \`startInspector()\` in src/inspect.ts starts its relay on 127.0.0.1 and
prints the page to open; pass its \`inspect\` to \`new McpConnectionManager({ inspect })\`; secrets
are scrubbed first. Graphs, paths and model-based tests use \`xstate/graph\` (\`toDirectedGraph\`,
\`TestModel\`; see src/testing and test/model-*.test.ts).
`;
}

// ---- All files ---------------------------------------------------------------------------

/** Every file of visualizations/, by name, exactly as `npm run visualize` writes it. */
export function renderVisualizations(): Record<string, string> {
  const files: Record<string, string> = {};
  const diagrams = CHARTS.map((chart) => ({ chart, mermaid: toMermaid(chart.machine) }));
  for (const { chart, mermaid } of diagrams) {
    files[`${chart.name}.mmd`] = mermaid;
    files[`${chart.name}.svg`] = toSvg(mermaid);
    files[`${chart.name}.json`] = toMachineJson(chart.machine);
  }
  files['README.md'] = readme(diagrams);
  return files;
}

function main(): void {
  mkdirSync(VISUALIZATIONS_DIR, { recursive: true });
  for (const [name, content] of Object.entries(renderVisualizations())) {
    const path = join(VISUALIZATIONS_DIR, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    console.log(`wrote visualizations/${name}`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();

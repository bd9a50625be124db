/**
 * `npm run visualize`: regenerates visualizations/ from the charts in machines/ — per machine a
 * Mermaid state diagram (.mmd), an SVG laid out by ELK (scripts/diagram, no browser), the
 * machine JSON (.json), a README that shows them, and a PNG of each SVG drawn by Chromium at
 * 1600 px wide, and the `@xstate-layout` header of each chart file (scripts/diagram/studio-layout.ts).
 * The text files are a pure function of the charts, so
 * test/visualizations.test.ts regenerates them in memory and catches drift.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { toDirectedGraph, type DirectedGraphEdge, type DirectedGraphNode } from 'xstate/graph';
import { registryMachine } from '../machines/registry.machine.js';
import { serverMachine } from '../machines/server.machine.js';
import { actionsOf, guardOf, readChart, triggerOf } from './diagram/chart-model.js';
import { layoutChart } from './diagram/layout.js';
import { renderChartSvg } from './diagram/svg.js';
import { encodeStudioLayout, studioLayout, withLayoutHeader } from './diagram/studio-layout.js';
import { screenshotSvg, SCREENSHOT_WIDTH } from './diagram/screenshot.js';
import { launchChromium } from './chromium.js';
import { screenshotLifecycleView, VIEW_SCREENSHOT_WIDTH } from './lifecycle-view-screenshot.js';

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
    summary: 'The lifecycle of one MCP server connection.',
  },
  {
    name: 'registry',
    file: 'machines/registry.machine.ts',
    machine: registryMachine,
    summary: 'The registry that spawns server actors lazily and routes the `mcp.*` events to them.',
  },
];

export const VISUALIZATIONS_DIR = fileURLToPath(new URL('../visualizations/', import.meta.url));

// ---- Mermaid ----------------------------------------------------------------------------

type StateNode = DirectedGraphNode['stateNode'];
type Transition = DirectedGraphEdge['transition'];

/** Mermaid state ids allow word characters only. */
function mermaidId(node: StateNode): string {
  return node.path.join('__');
}

/** `trigger [guard] / actions`, the UML transition label. */
export function edgeLabel(transition: Transition): string {
  const actions = actionsOf(transition);
  const effect = actions.length > 0 ? ` / ${actions.join(', ')}` : '';
  const reenter = transition.reenter ? ' (reenter)' : '';
  // Mermaid ends a statement at ';' and reads '#' as an entity: keep labels free of them.
  return `${triggerOf(transition)}${guardOf(transition)}${effect}${reenter}`.replace(/[;#]/g, ' ');
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
  // After the declarations: a Mermaid renderer may name a state after its first mention.
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

/** The chart drawn by ELK (scripts/diagram): compound states hold their children, transitions that stay are listed inside. */
export async function toSvg(chart: ChartSource): Promise<string> {
  const layout = await layoutChart(readChart(chart.machine));
  return renderChartSvg(layout, `${chart.name} chart`);
}

// ---- Stately Studio layout ---------------------------------------------------------------

export const REPOSITORY_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The `@xstate-layout` header for a chart: our ELK layout, in the form Studio reads. */
export async function layoutHeaderOf(chart: ChartSource): Promise<string> {
  return encodeStudioLayout(studioLayout(chart.machine, await layoutChart(readChart(chart.machine))));
}

/** Every chart file, by its path from the repository root, with its `@xstate-layout` header up to date. */
export async function chartSourcesWithLayout(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const chart of CHARTS) files[chart.file] = withLayoutHeader(readFileSync(join(REPOSITORY_ROOT, chart.file), 'utf8'), await layoutHeaderOf(chart));
  return files;
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
Files: [\`${chart.name}.svg\`](./${chart.name}.svg) (laid out by ELK, drawn without a browser),
[\`${chart.name}.png\`](./${chart.name}.png) (that SVG in Chromium, 1600 px wide),
[\`${chart.name}.mmd\`](./${chart.name}.mmd), [\`${chart.name}.json\`](./${chart.name}.json) (\`machine.toJSON()\`).

![${chart.name} chart](./${chart.name}.png)

\`\`\`mermaid
${mermaid.trimEnd()}
\`\`\`
`,
  );
  return `# Visualizations

Generated from [\`machines/\`](../machines) by \`npm run visualize\` (scripts/visualize.ts); never
edit by hand. \`test/visualizations.test.ts\` fails when these files and the charts disagree;
\`test/visualizations-geometry.test.ts\` checks that nothing in the SVGs is cut off or overlaps.
[\`lifecycle-view.png\`](./lifecycle-view.png) is the live lifecycle view (\`mcp-statechart demo --view\`)
of the demo's servers, taken while the killed notes server waits for its retry.

Reading the pictures: a compound state is a box that holds its children; the black dot marks the
initial child. Under a state's title come its description, what it invokes, its entry/exit
actions and the transitions that stay in it (\`EVENT [guard] / actions\`; \`↻\` marks one that
targets the state itself, \`↻ reenter\` one that restarts it). An event with several transitions
that stay is a guard chain: the event, then one indented line per branch, \`[else]\` for the one
without a guard; events next to each other in the chart with the same chain share one heading.
A dashed box is a parallel state: its children are regions, all active at once. Arrows carry \`EVENT [guard]\`, one
line per transition between the same two states; the actions of arrows are in the Mermaid text
below. A transition written on a parent state applies in every child that does not handle the
event itself, so it is shown once, on the parent. \`after backoff\` is a named delay, \`always\` an
eventless transition (taken as soon as its guard holds), \`connect done\` / \`connect error\` are
the outcomes of the invoked actor \`connect\`. Where one event has several guarded transitions, the
first in the chart file whose guard passes is taken.

In the Mermaid text, an edge label is \`trigger [guard] / actions\`, \`(reenter)\` restarts the
target state, and "any state (unless handled)" stands for the machine root.

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

Each chart file starts its \`createMachine\` config with an \`@xstate-layout\` comment, the layout
Studio itself saves there, written by \`npm run visualize\` from the layout of these pictures: Studio
opens the chart laid out as drawn here. States, transitions, guards, delays and invokes come in by name. The few inline functions (the
\`context\` factory, invoke \`input\`, computed action \`params\`) are code, not chart structure.

Paste a chart file, not this folder's JSON: \`*.json\` is XState's \`machine.toJSON()\`, for
viewers, tooling and diffs only. It is not Studio's import format, and it cannot be turned back
into a machine: \`createMachine\` does not accept it (\`initial\` is serialized as an object,
implementations are names without code). To run or test a chart, import it from
\`mcp-statechart/machines\`; its TypeScript source ships in the package (\`machines/*.ts\`).

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
export async function renderVisualizations(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const diagrams = CHARTS.map((chart) => ({ chart, mermaid: toMermaid(chart.machine) }));
  for (const { chart, mermaid } of diagrams) {
    files[`${chart.name}.mmd`] = mermaid;
    files[`${chart.name}.svg`] = await toSvg(chart);
    files[`${chart.name}.json`] = toMachineJson(chart.machine);
  }
  files['README.md'] = readme(diagrams);
  return files;
}

async function main(): Promise<void> {
  mkdirSync(VISUALIZATIONS_DIR, { recursive: true });
  const files = await renderVisualizations();
  for (const [name, content] of Object.entries(files)) {
    const path = join(VISUALIZATIONS_DIR, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    console.log(`wrote visualizations/${name}`);
  }
  for (const [file, source] of Object.entries(await chartSourcesWithLayout())) {
    writeFileSync(join(REPOSITORY_ROOT, file), source);
    console.log(`wrote the @xstate-layout header of ${file}`);
  }
  // The PNGs are what the repository page shows; Chromium draws them from the SVGs just written.
  const browser = await launchChromium();
  try {
    for (const chart of CHARTS) {
      writeFileSync(join(VISUALIZATIONS_DIR, `${chart.name}.png`), await screenshotSvg(browser.context, files[`${chart.name}.svg`]!));
      console.log(`wrote visualizations/${chart.name}.png (${SCREENSHOT_WIDTH} px wide)`);
    }
    writeFileSync(join(VISUALIZATIONS_DIR, 'lifecycle-view.png'), await screenshotLifecycleView(browser.context));
    console.log(`wrote visualizations/lifecycle-view.png (the live view of the demo's servers, ${VIEW_SCREENSHOT_WIDTH} px wide)`);
  } finally {
    await browser.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

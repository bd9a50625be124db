import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileSync as readSource } from 'node:fs';
import type { AnyStateMachine } from 'xstate';
import { getStateNodes, toDirectedGraph } from 'xstate/graph';
import { serverMachine } from '../machines/server.machine.js';
import { screenshotSize, SCREENSHOT_WIDTH } from '../scripts/diagram/screenshot.js';
import { decodeStudioLayout, encodeStudioLayout, LAYOUT_HEADER } from '../scripts/diagram/studio-layout.js';
import { CHARTS, layoutHeaderOf, renderVisualizations, toMermaid, VISUALIZATIONS_DIR } from '../scripts/visualize.js';

/** Where two texts part, so a drift message points at the changed line instead of dumping an SVG. */
function firstDifference(committed: string, generated: string): string {
  const was = committed.split('\n');
  const now = generated.split('\n');
  const line = was.findIndex((text, index) => text !== now[index]);
  const at = line === -1 ? was.length : line;
  return `at line ${at + 1}: committed ${JSON.stringify(was[at]?.slice(0, 120))}, generated ${JSON.stringify(now[at]?.slice(0, 120))}`;
}

const RERUN = 'visualizations/ is out of date with machines/: run `npm run visualize` and commit the result.';

const expected = await renderVisualizations();

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('visualizations/', () => {
  it('holds a Mermaid diagram, an SVG and the machine JSON for every chart, plus a README', () => {
    const names = CHARTS.flatMap((chart) => [`${chart.name}.mmd`, `${chart.name}.svg`, `${chart.name}.json`]);
    expect(Object.keys(expected).sort()).toEqual([...names, 'README.md'].sort());
  });

  it.each(Object.keys(expected))('%s matches what `npm run visualize` generates from machines/', (name) => {
    const path = join(VISUALIZATIONS_DIR, name);
    expect(existsSync(path), `${name} is missing. ${RERUN}`).toBe(true);
    const committed = readFileSync(path, 'utf8');
    expect(committed === expected[name], `${name} differs ${firstDifference(committed, expected[name]!)}. ${RERUN}`).toBe(true);
  });

  it('generates byte-identical output on every run', async () => {
    expect(await renderVisualizations()).toEqual(expected);
  });

  it.each(CHARTS)('$name.png is the current $name.svg drawn 1600 px wide', ({ name }) => {
    const path = join(VISUALIZATIONS_DIR, `${name}.png`);
    expect(existsSync(path), `${name}.png is missing. ${RERUN}`).toBe(true);
    const size = screenshotSize(expected[`${name}.svg`]!);
    expect(pngSize(readFileSync(path)), `${name}.png does not match ${name}.svg. ${RERUN}`).toEqual({ width: SCREENSHOT_WIDTH, height: size.height });
  });
});

describe('the Mermaid diagram of a chart', () => {
  const mermaid = toMermaid(serverMachine);

  it('draws nested states as composite states with their initial state', () => {
    expect(mermaid).toContain('state "connected" as connected {');
    expect(mermaid).toMatch(/state "connected" as connected \{\n(?:.*\n)*?\s+\[\*\] --> connected__ready\n\s+\}/);
  });

  it('labels delays, guards and invoke outcomes', () => {
    expect(mermaid).toContain('after backoff / count retry');
    expect(mermaid).toContain('connect error [is config error] / store connect error');
    expect(mermaid).toContain('connecting --> connected : connect done / store manifest\n');
    expect(mermaid).toContain('after idleTimeout [idle timer enabled]');
  });

  it('keeps every transition, one label line each: the edges of toDirectedGraph and the eventless ones it omits', () => {
    const countEdges = (node: ReturnType<typeof toDirectedGraph>): number =>
      node.edges.length + (node.stateNode.always?.length ?? 0) + node.children.reduce((sum, child) => sum + countEdges(child), 0);
    const arrows = mermaid.split('\n').filter((line) => line.includes(' --> ') && !line.includes('[*]'));
    const labelLines = arrows.reduce((sum, line) => sum + line.split(' : ')[1]!.split('<br/>').length, 0);
    expect(labelLines).toBe(countEdges(toDirectedGraph(serverMachine)));
  });
});

/** Every action, guard, invoked actor and delay the chart uses, with where it is used, when it is not a name from setup(). */
function inlineImplementations(machine: AnyStateMachine): string[] {
  const { actions, guards, actors, delays } = machine.implementations;
  const problems: string[] = [];
  const named = (what: string, where: string, reference: unknown, known: Record<string, unknown>) => {
    const name = typeof reference === 'string' ? reference : (reference as { type?: unknown } | undefined)?.type;
    if (typeof name !== 'string' || !Object.hasOwn(known, name)) problems.push(`${where}: ${what} ${String(name ?? 'inline')}`);
  };
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    // `after` adds a raise on entry and a cancel on exit: XState's own, not the chart's.
    const timerActions = new Set(['xstate.raise', 'xstate.cancel']);
    const ownActions = [...node.entry, ...node.exit].filter((action) => !(node.after.length > 0 && timerActions.has((action as { type?: string }).type ?? '')));
    for (const action of ownActions) named('action', node.id, action, actions);
    const transitions = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
    for (const transition of transitions) {
      const where = `${node.id} on ${transition.eventType || 'always'}`;
      for (const action of transition.actions) named('action', where, action, actions);
      if (transition.guard !== undefined) named('guard', where, transition.guard, guards);
    }
    for (const invoke of node.invoke) named('actor', node.id, invoke.src, actors);
    for (const delayed of node.after) {
      if (typeof delayed.delay !== 'number') named('delay', node.id, delayed.delay, delays);
    }
  }
  return problems;
}

describe('what the diagrams draw', () => {
  it("draws only the charts' own actions: none of XState's timer actions (as 'inline action' or by their xstate.* names)", () => {
    for (const chart of CHARTS) {
      for (const extension of ['svg', 'mmd']) {
        const drawn = readFileSync(join(VISUALIZATIONS_DIR, `${chart.name}.${extension}`), 'utf8');
        expect(drawn, `${chart.name}.${extension}`).not.toMatch(/inline action|xstate\.(raise|cancel)/);
      }
    }
  });
});

describe('the chart files, as Stately Studio imports them', () => {
  it.each(CHARTS)('$file is one setup({...}).createMachine({...}) and does no I/O', ({ file }) => {
    const source = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
    expect(source.match(/\bsetup\(\{/g)).toHaveLength(1);
    expect(source).toMatch(/\}\)\.createMachine\(\{/);
    expect(source).not.toMatch(/from '(node:|\.\.\/src\/|@modelcontextprotocol\/sdk\/client)/);
  });

  it.each(CHARTS)('$file references every action, guard, actor and delay by its name in setup()', ({ machine }) => {
    expect(inlineImplementations(machine)).toEqual([]);
  });
});

describe('the @xstate-layout header of each chart file, as Stately Studio writes it', () => {
  const stateNodes = (machine: AnyStateMachine) => [machine.root, ...getStateNodes(machine.root)];

  it.each(CHARTS)('$file has one, as the first line of its createMachine config, matching `npm run visualize`', async (chart) => {
    const source = readFileSync(new URL(`../${chart.file}`, import.meta.url), 'utf8');
    const headers = [...source.matchAll(LAYOUT_HEADER)];
    expect(headers, `${chart.file} has no @xstate-layout header. ${RERUN}`).toHaveLength(1);
    expect(source).toContain(`}).createMachine({\n  ${headers[0]![0]}\n`);
    // lz-string's URI-safe alphabet; every layout Studio writes starts N4Ig, the encoding of '{"'.
    expect(headers[0]![1]).toMatch(/^N4Ig[A-Za-z0-9+$-]+$/);
    expect(headers[0]![1] === (await layoutHeaderOf(chart)), `the @xstate-layout header of ${chart.file} is out of date. ${RERUN}`).toBe(true);
  });

  it.each(CHARTS)("$file's header decodes to a position for every state and every transition, and encodes back to itself", ({ file, machine }) => {
    const encoded = [...readFileSync(new URL(`../${file}`, import.meta.url), 'utf8').matchAll(LAYOUT_HEADER)][0]![1]!;
    const layout = decodeStudioLayout(encoded);
    expect(encodeStudioLayout(layout)).toBe(encoded);
    expect(Object.keys(layout.nodes).sort()).toEqual(stateNodes(machine).map((node) => node.id).sort());
    const transitions = stateNodes(machine).flatMap((node) => [...node.transitions].flatMap(([event, list]) => list.map((_, index) => `${node.id}#${event}[${index}]`)));
    expect(Object.keys(layout.edges).sort()).toEqual(transitions.sort());
    const positions = [...Object.values(layout.nodes), ...Object.values(layout.edges)].map(({ position }) => position);
    expect(positions.every(({ x, y }) => Number.isFinite(x) && Number.isFinite(y))).toBe(true);
  });
});

/**
 * `mcp.stateChanged` carries the real substate path, and the table of substates in
 * docs/ARCHITECTURE.md ("Substates") is the chart's: every leaf state of the server chart is a
 * row and every row a leaf, and the rows marked reported are exactly the substates the chart
 * reports. The report that ends a close says so (`closed: true`), and by then a stdio server's
 * process is gone.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { McpConnectionManager, type McpStateChangedEmitted, type ServerSubstate } from 'mcp-statechart';
import { serverMachine } from '../machines/server.machine.js';
import { silentLogger } from '../src/logger.js';
import { stdioFixture } from './support/fixtures.js';
import { textOf } from './support/chaos-helpers.js';

interface TableRow {
  substate: string;
  reported: boolean;
}

/** The rows of the table under "### Substates" in docs/ARCHITECTURE.md. */
function documentedSubstates(): TableRow[] {
  const doc = readFileSync(new URL('../docs/ARCHITECTURE.md', import.meta.url), 'utf8');
  const section = doc.split('### Substates')[1]?.split(/\n#{2,3} /)[0] ?? '';
  return [...section.matchAll(/^\| `([a-z.]+)` \| (yes|no) \|/gm)].map(([, substate, reported]) => ({ substate: substate!, reported: reported === 'yes' }));
}

function leavesOf(node: AnyStateNode): AnyStateNode[] {
  const children = Object.values(node.states);
  return children.length === 0 ? [node] : children.flatMap(leavesOf);
}

/** The substates a state's own entry actions report (`report state to registry`). */
function reportsOf(node: AnyStateNode): string[] {
  return node.entry.flatMap((action) => {
    if (typeof action !== 'object' || action === null || !('type' in action) || action.type !== 'report state to registry') return [];
    return 'params' in action && typeof action.params === 'object' && action.params && 'substate' in action.params ? [String(action.params.substate)] : [];
  });
}

/** The substates the chart reports, from every state's entry actions. */
function reportedByChart(node: AnyStateNode): string[] {
  return [...reportsOf(node), ...Object.values(node.states).flatMap(reportedByChart)];
}

/** Every `ServerSubstate`, held against the type by the compiler: one missing from it, or not in it, does not compile. */
const SERVER_SUBSTATES = {
  'disconnected.idle': true,
  'disconnected.closing': true,
  'disconnected.reopening': true,
  'connecting.negotiating': true,
  'connecting.listing': true,
  'connected.ready': true,
  'connected.checking': true,
  'connected.redefining': true,
  'error.releasing': true,
  'error.retrying': true,
  'error.failed': true,
} satisfies Record<ServerSubstate, true>;

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the substates mcp.stateChanged reports', () => {
  it('are documented in one table that lists every leaf state of the server chart, and nothing else', () => {
    const leaves = leavesOf(serverMachine.root).map((node) => node.path.join('.'));
    const documented = documentedSubstates().map((row) => row.substate);
    expect(leaves.length).toBeGreaterThan(8);
    expect([...documented].sort()).toEqual([...leaves].sort());
  });

  it('are all named by the public ServerSubstate type, the ones not reported included', () => {
    const leaves = leavesOf(serverMachine.root).map((node) => node.path.join('.'));
    expect(Object.keys(SERVER_SUBSTATES).sort()).toEqual([...leaves].sort());
  });

  it('are the rows of that table marked reported, each reported with its own path', () => {
    const reported = reportedByChart(serverMachine.root);
    const documented = documentedSubstates().filter((row) => row.reported).map((row) => row.substate);
    expect([...new Set(reported)].sort()).toEqual([...documented].sort());
    // Each is reported from the state itself, or from its parent when it is where the parent starts.
    for (const substate of reported) {
      const node = serverMachine.getStateNodeById(`server.${substate}`);
      const fromParent = reportsOf(node.parent!).includes(substate) && node.parent!.initial.target[0] === node;
      expect(reportsOf(node).includes(substate) || fromParent, substate).toBe(true);
    }
  });

  it('end a close with closed: true, sent once the stdio server\'s process has exited', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    await manager.connect('fixture', stdioFixture());
    const pid = Number(textOf(await manager.callTool('fixture', 'pid', {})));
    expect(isAlive(pid)).toBe(true);
    const reports: Array<McpStateChangedEmitted & { alive: boolean }> = [];
    manager.on('mcp.stateChanged', (event) => reports.push({ ...event, alive: isAlive(pid) }));

    await manager.disconnect('fixture');

    expect(reports.map(({ substate, closed, alive }) => ({ substate, closed, alive }))).toEqual([
      { substate: 'disconnected.closing', closed: undefined, alive: true },
      { substate: 'disconnected.idle', closed: true, alive: false },
    ]);
  }, 30_000);
});

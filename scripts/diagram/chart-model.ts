/**
 * What a statechart diagram shows, read from any XState v5 machine (`machine.root` and its
 * state nodes): boxes for states (compound states hold their children), the lines written
 * inside each box (its description, what it invokes, its entry/exit actions, the transitions
 * that stay in it), and arrows for the transitions that go somewhere else. Nothing here is
 * specific to one chart, so a redesigned chart draws without changes to this file.
 */
import type { AnyStateMachine } from 'xstate';

type StateNode = AnyStateMachine['root'];
type Transition = NonNullable<StateNode['always']>[number];

export interface ChartState {
  /** The state's path, dot-separated (`connected.idle`); '' for the machine itself. */
  path: string;
  /** What the box is titled with: the state key, or the machine id for the root. */
  title: string;
  description?: string;
  kind: 'machine' | 'compound' | 'parallel' | 'atomic' | 'final' | 'history';
  /** Lines written inside the box under its title: invokes, entry/exit, transitions that stay. */
  notes: ChartNote[];
  children: ChartState[];
  /** The path of the initial child, for compound states. */
  initial?: string;
}

/**
 * One line inside a state box: what happens in bold-ish text, its effect in grey. A `heading`
 * names the events of the guard chain that follows it, one `branch` note per transition.
 */
export interface ChartNote {
  what: string;
  effect?: string;
  kind?: 'heading' | 'branch';
}

/** One arrow: every transition from `source` to `target`, one label line each. */
export interface ChartEdge {
  source: string;
  target: string;
  labels: string[];
}

export interface ChartModel {
  root: ChartState;
  edges: ChartEdge[];
}

function pathOf(node: StateNode): string {
  return node.path.join('.');
}

function nameOf(reference: unknown, fallback: string): string {
  if (typeof reference === 'string') return reference;
  // XState's own timer actions are functions carrying a `type` (xstate.raise, xstate.cancel).
  if (reference && (typeof reference === 'object' || typeof reference === 'function') && 'type' in reference && typeof reference.type === 'string') return reference.type;
  return fallback;
}

function actorName(id: string): string {
  return id === '*' ? 'any child' : id;
}

/** The event that triggers a transition, in words: delays and invoke outcomes read as such. */
export function triggerOf(transition: Transition): string {
  const type = transition.eventType;
  if (!type) return 'always';
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

export function guardOf(transition: Transition): string {
  return transition.guard === undefined ? '' : ` [${nameOf(transition.guard, 'inline guard')}]`;
}

export function actionsOf(transition: Transition): string[] {
  return transition.actions.map((action) => nameOf(action, 'inline action'));
}

/** XState adds these itself to run `after` timers; they are not the chart's actions. */
const TIMER_ACTIONS = new Set(['xstate.raise', 'xstate.cancel']);

function ownActions(actions: readonly unknown[], hasTimers: boolean): string[] {
  return actions.map((action) => nameOf(action, 'inline action')).filter((name) => !(hasTimers && TIMER_ACTIONS.has(name)));
}

/** Every transition of a state node, in chart order: events, delays, invoke outcomes, then eventless ones. */
function transitionsOf(node: StateNode): Transition[] {
  return [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
}

/** A transition that stays in its state: its own line, or its branch under its trigger's heading. */
interface Stay {
  note: ChartNote;
  branch: ChartNote;
}

/**
 * The lines for the transitions that stay: a trigger with one transition is one line; a guard
 * chain is a heading and one branch per guard, and triggers next to each other in the chart with
 * the same chain share one heading, so a chain written once in the chart is drawn once.
 */
function stayNotes(stays: Map<string, Stay[]>): ChartNote[] {
  const groups: Array<{ triggers: string[]; chain: Stay[] }> = [];
  const same = (a: Stay[], b: Stay[]) => a.length === b.length && a.every((stay, index) => stay.branch.what === b[index]!.branch.what && stay.branch.effect === b[index]!.branch.effect);
  for (const [trigger, chain] of stays) {
    const last = groups.at(-1);
    if (chain.length > 1 && last && same(last.chain, chain)) last.triggers.push(trigger);
    else groups.push({ triggers: [trigger], chain });
  }
  return groups.flatMap(({ triggers, chain }) =>
    chain.length === 1 ? [chain[0]!.note] : [{ what: triggers.join(', '), kind: 'heading' as const }, ...chain.map((stay) => stay.branch)],
  );
}

function kindOf(node: StateNode): ChartState['kind'] {
  // A parallel machine is drawn as one: its children are regions, all active at once.
  if (node.parent === undefined) return node.type === 'parallel' ? 'parallel' : 'machine';
  return node.type === 'compound' ? 'compound' : node.type;
}

function readState(node: StateNode, edges: Map<string, ChartEdge>): ChartState {
  const notes: ChartNote[] = [];
  for (const invoke of node.invoke) notes.push({ what: `invoke ${nameOf(invoke.src, 'inline actor')}`, effect: invoke.id ? `as ${invoke.id}` : undefined });
  const hasTimers = node.after.length > 0;
  const entry = ownActions(node.entry, hasTimers);
  const exit = ownActions(node.exit, hasTimers);
  if (entry.length > 0) notes.push({ what: 'entry', effect: entry.join(', ') });
  if (exit.length > 0) notes.push({ what: 'exit', effect: exit.join(', ') });

  // Transitions that stay, by trigger, in chart order: they are written inside the box.
  const stays = new Map<string, Stay[]>();
  for (const transition of transitionsOf(node)) {
    const label = `${triggerOf(transition)}${guardOf(transition)}`;
    const actions = actionsOf(transition);
    const targets = transition.target ?? [];
    // Targetless, or back to the state itself: written inside the box, not drawn as a loop.
    if (targets.length === 0 || targets.every((target) => target === node)) {
      const reenter = targets.length > 0 ? (transition.reenter ? ' ↻ reenter' : ' ↻') : '';
      const trigger = triggerOf(transition);
      const guard = transition.guard === undefined ? '[else]' : guardOf(transition).trim();
      const effect = actions.length > 0 ? actions.join(', ') : undefined;
      stays.set(trigger, [...(stays.get(trigger) ?? []), { note: { what: `${label}${reenter}`, effect }, branch: { what: `${guard}${reenter}`, effect, kind: 'branch' } }]);
      continue;
    }
    for (const target of targets) {
      const key = `${pathOf(node)} -> ${pathOf(target)}`;
      const edge = edges.get(key) ?? { source: pathOf(node), target: pathOf(target), labels: [] };
      if (!edge.labels.includes(label)) edge.labels.push(label);
      edges.set(key, edge);
    }
  }
  notes.push(...stayNotes(stays));

  const children = Object.values(node.states).map((child) => readState(child, edges));
  const initial = node.initial?.target[0];
  return {
    path: pathOf(node),
    title: node.parent === undefined ? node.id : node.key,
    description: node.description,
    kind: kindOf(node),
    notes,
    children,
    initial: initial && node.type === 'compound' ? pathOf(initial) : undefined,
  };
}

export function readChart(machine: AnyStateMachine): ChartModel {
  const edges = new Map<string, ChartEdge>();
  const root = readState(machine.root, edges);
  return { root, edges: [...edges.values()] };
}

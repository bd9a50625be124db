/**
 * State and transition coverage of a chart, measured on real actors: every microstep an actor
 * takes is reported to inspectors with the transitions it took, so coverage counts what ran,
 * not what a model predicted.
 */
import type { AnyActorRef, AnyStateMachine, InspectionEvent, Observer } from 'xstate';
import { getStateNodes, toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';

type StateNode = DirectedGraphNode['stateNode'];
type Transition = DirectedGraphNode['edges'][number]['transition'];

const transitionLists = new WeakMap<StateNode, Transition[]>();

/** A state node's transitions in the order `toDirectedGraph` numbers its edges. */
function transitionsOf(node: StateNode): Transition[] {
  let list = transitionLists.get(node);
  if (!list) {
    list = [...node.transitions.values()].flat();
    transitionLists.set(node, list);
  }
  return list;
}

/**
 * `<source state id>:<index>`, the edge id of `toDirectedGraph` without its target index. It
 * names the same transition in a chart and in the same chart after `.provide()`.
 *
 * @example
 * ```ts
 * import { chartTransitions, transitionKey } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * const first = serverMachine.root.states.disconnected!.states.idle!.transitions.get('CONNECT')![0]!;
 * console.log(transitionKey(first), chartTransitions(serverMachine).size);
 * ```
 */
export function transitionKey(transition: Transition): string | undefined {
  const index = transitionsOf(transition.source).indexOf(transition);
  if (index !== -1) return `${transition.source.id}:${index}`;
  // Eventless (`always`) transitions are not in the event map, and `toDirectedGraph` leaves them out.
  const eventless = transition.source.always?.indexOf(transition) ?? -1;
  return eventless === -1 ? undefined : `${transition.source.id}:always:${eventless}`;
}

function describeTransition(transition: Transition): string {
  const guard = transition.guard;
  const guardName = typeof guard === 'string' ? guard : guard && 'type' in guard ? String(guard.type) : undefined;
  const target = transition.target?.[0]?.id ?? transition.source.id;
  return `${transition.source.id} --${transition.eventType || 'always'}${guardName ? ` [${guardName}]` : ''}--> ${target}`;
}

/**
 * Every transition of the chart: the edges of `toDirectedGraph`, plus the eventless (`always`)
 * transitions it leaves out. Key → readable description.
 *
 * @example
 * ```ts
 * import { chartTransitions } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * for (const [key, label] of chartTransitions(serverMachine)) console.log(key, label);
 * ```
 */
export function chartTransitions(machine: AnyStateMachine): Map<string, string> {
  const transitions = new Map<string, string>();
  const visit = (node: DirectedGraphNode) => {
    for (const edge of node.edges) {
      const key = edge.id.slice(0, edge.id.lastIndexOf(':'));
      if (!transitions.has(key)) transitions.set(key, describeTransition(edge.transition));
    }
    for (const transition of node.stateNode.always ?? []) transitions.set(transitionKey(transition)!, describeTransition(transition));
    node.children.forEach(visit);
  };
  visit(toDirectedGraph(machine));
  return transitions;
}

/**
 * Every state node id of the chart, the root included.
 *
 * @example
 * ```ts
 * import { chartStateIds } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * console.log(chartStateIds(serverMachine)); // every state of the chart, nested ones included
 * ```
 */
export function chartStateIds(machine: AnyStateMachine): string[] {
  return [machine.root.id, ...getStateNodes(machine.root).map((node) => node.id)];
}

export interface CoverageReport {
  covered: number;
  total: number;
  missing: string[];
}

/**
 * Collects, across any number of actors of one chart, the states they were in and the transitions they took.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { CoverageRecorder } from 'mcp-statechart/testing';
 * import { serverMachine } from 'mcp-statechart/machines';
 *
 * const coverage = new CoverageRecorder(serverMachine);
 * let server: ReturnType<typeof createActor<typeof serverMachine>> | undefined;
 * server = createActor(serverMachine, { input: { name: 'notes', config: { command: 'notes-server' } }, inspect: coverage.observer(() => server) });
 * server.start();
 * console.log(coverage.stateCoverage().missing);
 * ```
 */
export class CoverageRecorder {
  readonly states = new Set<string>();
  readonly transitions = new Set<string>();
  private readonly allStates: string[];
  private readonly allTransitions: Map<string, string>;

  constructor(machine: AnyStateMachine) {
    this.allStates = chartStateIds(machine);
    this.allTransitions = chartTransitions(machine);
  }

  /** An inspection observer (`createActor(logic, { inspect })`) that records what `actor()` does. */
  observer(actor: () => AnyActorRef | undefined): Observer<InspectionEvent> {
    return {
      next: (event) => {
        if (event.actorRef !== actor()) return;
        if (event.type === '@xstate.microstep') {
          for (const transition of event._transitions) {
            const key = transitionKey(transition);
            if (key) this.transitions.add(key);
          }
        }
        if (event.type === '@xstate.microstep' || event.type === '@xstate.snapshot') {
          const nodes = (event.snapshot as { _nodes?: Array<{ id: string }> })._nodes ?? [];
          for (const node of nodes) this.states.add(node.id);
        }
      },
    };
  }

  stateCoverage(): CoverageReport {
    const missing = this.allStates.filter((id) => !this.states.has(id));
    return { covered: this.allStates.length - missing.length, total: this.allStates.length, missing };
  }

  transitionCoverage(): CoverageReport {
    const missing = [...this.allTransitions].filter(([key]) => !this.transitions.has(key)).map(([, text]) => text);
    return { covered: this.allTransitions.size - missing.length, total: this.allTransitions.size, missing };
  }
}

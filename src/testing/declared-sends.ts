/**
 * What the server chart sends to other actors (replies to `replyTo`, reports to the registry,
 * requests to its session), as the chart declares it and as a replay observes it. A model
 * replay that compares states only cannot see an action that stopped sending; this can.
 */
import { transition, type EventObject, type InspectionEvent } from 'xstate';
import { serverMachine, type ServerSnapshot } from '../../machines/server.machine.js';
import type { ServerModelEvent } from './server-test-model.js';

/** Refs by their id and errors by what they say: the same message from two runs reads the same. */
function plainData(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { error: value.name, code: (value as { code?: unknown }).code, message: value.message };
  if (value && typeof value === 'object' && 'sessionId' in value && 'send' in value) return `actor ${String((value as { id?: unknown }).id)}`;
  return value;
}

/**
 * One message: its target's id and the event with its payload (a reply carrying stale data differs).
 *
 * @example
 * ```ts
 * import { describeSend } from 'mcp-statechart/testing';
 *
 * console.log(describeSend('session', { type: 'IDLE_QUESTION' })); // to session: {"type":"IDLE_QUESTION"}
 * ```
 */
export function describeSend(targetId: string, event: EventObject): string {
  return `to ${targetId}: ${JSON.stringify(event, plainData)}`;
}

/**
 * The messages the unchanged server chart sends when `event` happens in `before`, read from the
 * actions of XState's pure `transition`: its immediate `sendTo`s and `sendParent`s (timers it
 * schedules are the model's own events, not messages). Pass the replayed actor's snapshot, not
 * the model's: the model keeps one concrete snapshot per abstract state, whose context (the last
 * error a refusal quotes, say) may come from another route there.
 *
 * @example
 * ```ts
 * import { createScriptedServer, declaredSends, SERVER_MODEL_INPUT } from 'mcp-statechart/testing';
 *
 * const server = createScriptedServer(SERVER_MODEL_INPUT);
 * server.start();
 * const step = { type: 'CANCEL' as const, requestId: 'read' };
 * const declared = declaredSends(server.snapshot(), step); // before the step
 * await server.perform(step);
 * console.log(server.takeSent(), declared); // equal when the chart does what it declares
 * server.stop();
 * ```
 */
export function declaredSends(before: ServerSnapshot, event: ServerModelEvent): string[] {
  // A snapshot remembers the machine it came from: a replay's actor runs the chart with its
  // implementations replaced, and the declaration must be the unchanged chart's.
  const unchanged = { ...serverMachine.resolveState({ value: before.value, context: before.context, historyValue: before.historyValue }), children: before.children };
  const [, actions] = transition(serverMachine, unchanged, event as never);
  return actions.flatMap((action) => {
    if (action.type !== 'xstate.sendTo') return [];
    const params = action.params as { to?: { id: string }; event: EventObject; delay?: number };
    if (params.delay !== undefined) return [];
    return [describeSend(params.to?.id ?? before.context.name, params.event)];
  });
}

/** The messages an actor sends to others, as `describeSend` names them, from its system's inspection events. */
export function sendsObserved(inspection: InspectionEvent, sender: unknown): string | undefined {
  if (inspection.type !== '@xstate.event' || inspection.sourceRef !== sender || inspection.event.type.startsWith('xstate.')) return undefined;
  return describeSend(String((inspection.actorRef as { id?: unknown }).id), inspection.event);
}

/**
 * `sendTo` for a chart that embeds the registry: the event is checked against the registry's
 * public protocol (`McpRegistryInput`), so a misspelt type, a missing `requestId` or `replyTo`,
 * or one of the registry's internal events (`mcp.server.*`) does not compile. XState's own
 * `sendTo('mcp', …)` checks nothing when the target is named by its id.
 */
import { sendTo, type ActionArgs, type ActionFunction, type AnyActorRef, type EventObject, type MachineContext, type ParameterizedObject } from 'xstate';
import type { McpRegistryInput } from '../machines/types.js';

/** Where the registry is: its invoke id (`'mcp'`), its ref, or an expression that gives either. */
export type RegistryTarget<TContext extends MachineContext, TExpressionEvent extends EventObject, TParams, TEvent extends EventObject> =
  | string
  | AnyActorRef
  | ((args: ActionArgs<TContext, TExpressionEvent, TEvent>, params: TParams) => string | AnyActorRef);

/** A registry request, or an expression that builds one from the action's arguments. */
export type RegistryRequestExpr<TContext extends MachineContext, TExpressionEvent extends EventObject, TParams, TEvent extends EventObject> =
  | McpRegistryInput
  | ((args: ActionArgs<TContext, TExpressionEvent, TEvent>, params: TParams) => McpRegistryInput);

/**
 * Sends a registry protocol event to the registry a chart invokes.
 *
 * @example
 * ```ts
 * import { setup } from 'xstate';
 * import { pureRegistryLogic, sendToRegistry, type McpReply } from 'mcp-statechart';
 *
 * const agent = setup({
 *   types: { events: {} as McpReply },
 *   actors: { mcp: pureRegistryLogic },
 *   actions: {
 *     'ask to load': sendToRegistry('mcp', ({ self }) => ({ type: 'mcp.load', server: 'notes', replyTo: self, requestId: 'load' })),
 *   },
 * }).createMachine({ invoke: { id: 'mcp', src: 'mcp', input: { servers: { notes: { command: 'notes-server' } } } }, entry: 'ask to load' });
 * ```
 */
export function sendToRegistry<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TParams extends ParameterizedObject['params'] | undefined,
  TEvent extends EventObject,
>(
  registry: RegistryTarget<TContext, TExpressionEvent, TParams, TEvent>,
  request: RegistryRequestExpr<TContext, TExpressionEvent, TParams, TEvent>,
): ActionFunction<TContext, TExpressionEvent, TEvent, TParams, never, never, never, never, never> {
  return sendTo<TContext, TExpressionEvent, TParams, AnyActorRef, TEvent>(registry, request);
}

import type { AnyStateMachine } from 'xstate';

/**
 * Replaces some of a machine's actor-logic methods (`restoreSnapshot`, `start`,
 * `getInitialSnapshot`, `transition`) in a way `.provide()` keeps. XState's `provide()` builds a
 * new StateMachine from the config and implementations alone, so a method replaced on one
 * instance is gone from the machine it returns; here `override` is applied to `machine` and
 * again to every machine provided from it (an embedder swapping an action, a test swapping an actor).
 * `override` replaces the methods of the machine it is given, wrapping that machine's own.
 */
export function withOverrides<M extends AnyStateMachine>(machine: M, override: (machine: M) => void): M {
  override(machine);
  const provide = machine.provide.bind(machine);
  machine.provide = ((implementations: Parameters<M['provide']>[0]) => withOverrides(provide(implementations) as M, override)) as M['provide'];
  return machine;
}

/**
 * The testing kit's transitionTours: one tour per transition of the chart, each the shortest
 * path to its source state and then the transition.
 */
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { transitionTours } from 'mcp-statechart/testing';

const door = createMachine({
  id: 'door',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'open', LOCK: 'locked' } },
    open: { on: { CLOSE: 'closed' } },
    locked: { on: { UNLOCK: 'closed', BREAK: 'broken' } },
    broken: { type: 'final' },
  },
});

describe('transitionTours', () => {
  it('gives each transition one tour, from the shortest path to its source state', () => {
    const model = createTestModel(door, { events: [{ type: 'OPEN' }, { type: 'CLOSE' }, { type: 'LOCK' }, { type: 'UNLOCK' }, { type: 'BREAK' }] });
    const tours = transitionTours(model, door);
    const described = tours.map((tour) => tour.steps.map((step) => step.event.type).join(' '));
    expect(described.sort()).toEqual(['xstate.init LOCK', 'xstate.init LOCK BREAK', 'xstate.init LOCK UNLOCK', 'xstate.init OPEN', 'xstate.init OPEN CLOSE']);
  });
});

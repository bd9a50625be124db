/**
 * The testing kit's replayPath: a step `xstate.after.<delay>.<state>` fires that timer on the
 * replay clock, whether the chart wrote the delay as a number or named it in `delays`.
 */
import { describe, expect, it } from 'vitest';
import { setup, type EventObject, type SnapshotFrom } from 'xstate';
import { createChartTestModel, replayPath } from 'mcp-statechart/testing';

const kettle = setup({ delays: { boiling: 90_000 } }).createMachine({
  id: 'kettle',
  initial: 'off',
  states: {
    off: { on: { SWITCH_ON: 'heating' } },
    heating: { after: { boiling: 'boiled' } },
    boiled: { after: { 5000: 'off' } },
  },
});

describe('replayPath', () => {
  it('fires a named delay without being told its milliseconds', async () => {
    const model = createChartTestModel<SnapshotFrom<typeof kettle>, EventObject>(kettle, {
      events: [{ type: 'SWITCH_ON' }, { type: 'xstate.after.boiling.kettle.heating' }, { type: 'xstate.after.5000.kettle.boiled' }],
    });
    const path = model.getShortestPaths().find((candidate) => candidate.state.value === 'boiled')!;
    expect(path.steps.map((step) => step.event.type)).toEqual(['xstate.init', 'SWITCH_ON', 'xstate.after.boiling.kettle.heating']);
    const seen: unknown[] = [];
    await replayPath(path, { model, logic: kettle, check: (actual, expected) => {
      expect(actual.value).toEqual(expected.value);
      seen.push(actual.value);
    } });
    expect(seen).toEqual(['off', 'heating', 'boiled']);
  });
});

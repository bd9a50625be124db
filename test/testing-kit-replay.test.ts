/**
 * The testing kit's replayPath: a step `xstate.after.<delay>.<state>` fires that timer on the
 * replay clock, whether the chart wrote the delay as a number or named it in `delays`; and
 * createChartTestModel takes the snapshot type from the chart, so a `check` reads
 * `actual.value` typed without type arguments.
 */
import { describe, expect, it } from 'vitest';
import { setup, type EventObject, type SnapshotFrom } from 'xstate';
import { createChartTestModel, replayPath } from 'mcp-statechart/testing';
import { compileSnippets } from './support/compile-snippets.js';

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

describe('createChartTestModel', () => {
  it('types the snapshots from the chart, with no type arguments', () => {
    const path = new URL('./chart-model-inference.snippet.ts', import.meta.url).pathname;
    const snippet = [
      "import { createChartTestModel, replayPath, SERVER_MODEL_INPUT, transitionTours } from 'mcp-statechart/testing';",
      "import { serverMachine, type ServerSnapshot } from 'mcp-statechart/machines';",
      "const model = createChartTestModel(serverMachine, { events: [{ type: 'CONNECT' }, { type: 'DISCONNECT' }], input: SERVER_MODEL_INPUT });",
      'for (const path of transitionTours(model, serverMachine)) {',
      '  await replayPath(path, { model, logic: serverMachine, input: SERVER_MODEL_INPUT, check: (actual, expected) => {',
      "    const value: ServerSnapshot['value'] = actual.value;",
      '    console.log(value, expected.context.name);',
      '    // @ts-expect-error the state value is a union of state names, not a number',
      '    const wrong: number = actual.value;',
      '    console.log(wrong);',
      '  } });',
      '}',
    ].join('\n');
    const diagnostics = compileSnippets(new Map([[path, snippet]]));
    expect(diagnostics.get(path)!.map(({ line, message }) => `${line}: ${message.slice(0, 200)}`)).toEqual([]);
  }, 60_000);
});

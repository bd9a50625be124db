/**
 * The testing kit's replayPath: a step `xstate.after.<delay>.<state>` fires that timer on the
 * replay clock, whether the chart wrote the delay as a number or named it in `delays`; a registry
 * reply the chart acts on must answer a request the chart has sent; and createChartTestModel takes
 * the snapshot type from the chart, so a `check` reads `actual.value` typed without type arguments.
 */
import { describe, expect, it } from 'vitest';
import { sendTo, setup, type EventObject, type SnapshotFrom } from 'xstate';
import { createChartTestModel, replayPath, silentRegistryLogic, transitionTours } from 'mcp-statechart/testing';
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

/** A chart that asks its (silent) registry for a server and waits for the answer to that request. */
const asker = setup({
  types: { events: {} as EventObject & { requestId?: string } },
  actors: { mcp: silentRegistryLogic },
  actions: {
    'ask to load': sendTo('mcp', { type: 'mcp.load', server: 'notes', requestId: 'mine', replyTo: 'asker' }),
  },
  guards: { 'answers mine': ({ event }) => event.requestId === 'mine' },
}).createMachine({
  id: 'asker',
  initial: 'idle',
  invoke: { src: 'mcp', id: 'mcp', input: { servers: {} } },
  states: {
    idle: { on: { GO: 'asking' } },
    asking: { entry: 'ask to load', on: { 'mcp.loaded': { guard: 'answers mine', target: 'loaded' } } },
    loaded: {},
  },
});

describe('replayPath, for a chart that talks to the registry', () => {
  const loaded = (requestId: string) => ({ type: 'mcp.loaded', server: 'notes', requestId, manifest: { tools: [], resources: [], resourceTemplates: [], prompts: [] } });
  const model = createChartTestModel<SnapshotFrom<typeof asker>, EventObject & { requestId?: string }>(asker, { events: [{ type: 'GO' }, loaded('mine'), loaded('not.mine')] });
  const pathToLoaded = () => model.getShortestPaths().find((candidate) => candidate.state.value === 'loaded')!;
  const check = (actual: SnapshotFrom<typeof asker>, expected: SnapshotFrom<typeof asker>) => expect(actual.value).toEqual(expected.value);

  it('replays a reply to a request the chart has sent, and a reply to someone else that it ignores', async () => {
    await replayPath(pathToLoaded(), { model, logic: asker, check });
    const ignoring = transitionTours(model, asker, { includeIgnored: true }).filter((tour) => tour.steps.at(-1)!.event.requestId === 'not.mine');
    expect(ignoring.length).toBeGreaterThan(0);
    for (const tour of ignoring) await replayPath(tour, { model, logic: asker, check });
  });

  it('fails, naming the step and the request, when the chart acts on a reply it never asked for', async () => {
    const silent = asker.provide({ actions: { 'ask to load': () => {} } });
    await expect(replayPath(pathToLoaded(), { model, logic: silent, check })).rejects.toThrow(
      /step 2 \(mcp\.loaded for request "mine"\): the chart has not sent a request with requestId "mine".*open requests: none/,
    );
  });
});

/** A chart that subscribes to its (silent) registry's reports and waits for one. */
const watcher = setup({
  actors: { mcp: silentRegistryLogic },
  actions: { subscribe: sendTo('mcp', ({ self }) => ({ type: 'mcp.subscribe', replyTo: self })) },
}).createMachine({
  id: 'watcher',
  initial: 'watching',
  invoke: { src: 'mcp', id: 'mcp', input: { servers: {} } },
  states: {
    watching: { entry: 'subscribe', on: { 'mcp.stateChanged': 'told' } },
    told: {},
  },
});

describe('replayPath, for a chart that subscribes to the registry', () => {
  const report = { type: 'mcp.stateChanged', server: 'notes', state: 'connected', substate: 'connected.ready', attempt: 0 };
  const model = createChartTestModel<SnapshotFrom<typeof watcher>, EventObject>(watcher, { events: [report] });
  const pathToTold = () => model.getShortestPaths().find((candidate) => candidate.state.value === 'told')!;
  const check = (actual: SnapshotFrom<typeof watcher>, expected: SnapshotFrom<typeof watcher>) => expect(actual.value).toEqual(expected.value);

  it('replays a report once the chart has subscribed', async () => {
    await replayPath(pathToTold(), { model, logic: watcher, check });
  });

  it('fails, naming the step, when the chart acts on a report without having subscribed', async () => {
    const unsubscribed = watcher.provide({ actions: { subscribe: () => {} } });
    await expect(replayPath(pathToTold(), { model, logic: unsubscribed, check })).rejects.toThrow(
      /step 1 \(mcp\.stateChanged\): the chart acts on a report but has not sent mcp\.subscribe/,
    );
  });
});

/**
 * The server chart holds data only, so a snapshot persists in every state: the shortest model
 * path to every abstract state is replayed on a scripted actor, and at each step the persisted
 * snapshot goes through JSON and back into a running actor.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, type AnyActorRef } from 'xstate';
import { serverMachine, type ServerSnapshot } from '../machines/server.machine.js';
import {
  createScriptedServer,
  createServerTestModel,
  FAKE_MANIFEST,
  SERVER_MODEL_INPUT,
  type ServerModelEvent,
} from '../src/testing/index.js';

const inbox = createActor(fromCallback(() => {})).start() as AnyActorRef;
const model = createServerTestModel({ replyTo: inbox });

const inertLogic = serverMachine.provide({
  actors: {
    connect: fromPromise(async () => ({ manifest: FAKE_MANIFEST })),
    closeSession: fromPromise(async () => {}),
    session: fromCallback(() => () => {}),
  },
});

describe('persisting the server chart', () => {
  it('getPersistedSnapshot() goes through JSON at every state the model reaches, and restores to a running actor', async () => {
    const paths = model.getShortestPaths({ allowDuplicatePaths: true });
    const seen = new Set<string>();
    for (const path of paths) {
      const scripted = createScriptedServer(SERVER_MODEL_INPUT);
      scripted.start();
      try {
        for (const step of path.steps.slice(1)) {
          await scripted.perform(step.event as ServerModelEvent);
          const snapshot: ServerSnapshot = scripted.snapshot();
          const json = JSON.stringify(scripted.actor.getPersistedSnapshot());
          seen.add(JSON.stringify(snapshot.value));
          // No live handle in the context: a live SDK client refers to itself and would not go through JSON.
          expect(Object.keys(JSON.parse(json).context)).not.toContain('session');
          if (snapshot.context.lastError) expect(JSON.parse(json).context.lastError.message).toBe(snapshot.context.lastError.message);
          const restored = createActor(inertLogic, { snapshot: JSON.parse(json), input: SERVER_MODEL_INPUT }).start();
          expect(restored.getSnapshot().value).toEqual(snapshot.value);
          expect(restored.getSnapshot().status).toBe('active');
          restored.stop();
        }
      } finally {
        scripted.stop();
      }
    }
    // Every leaf state of the chart was persisted at least once.
    expect(seen.size).toBeGreaterThanOrEqual(9);
  });
});

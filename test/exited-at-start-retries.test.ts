/**
 * A stdio server whose command exits with a code at start is a transient failure (a launcher's
 * download or a busy port can pass), so it is retried per backoff; the hints given once the
 * retries are used up must not say that trying again cannot help. A real process; the backoff
 * runs on a SimulatedClock.
 */
import { SimulatedClock } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpConnectionManager } from '../src/index.js';
import { explainFailure } from '../src/cli/failure-text.js';
import { loadFailureText } from '../src/tools/failure-text.js';
import { countingManager, stateOf, waitForState } from './support/chaos-helpers.js';
import { descendantsOfThisProcess, rejectionOf } from './support/fixtures.js';

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  expect(descendantsOfThisProcess()).toEqual([]);
});

describe('a stdio server whose command exits 1 at start', () => {
  it('is retried after 1 s and 2 s, and then its hints say trying again will likely fail the same way, not that it will not help', async () => {
    const clock = new SimulatedClock();
    const spawned = countingManager({ clock });
    managers.push(spawned.manager);
    const config = { command: process.execPath, args: ['-e', "process.stderr.write('notes-server: NOTES_DIR is not set\\n'); process.exit(1)"] };
    const outcome = rejectionOf(spawned.manager.connect('failing', config, { maxRetries: 2 }));

    for (const delayMs of [1_000, 2_000]) {
      await waitForState(spawned.manager, 'failing', ['error.retrying']);
      clock.increment(delayMs - 1);
      expect(stateOf(spawned.manager, 'failing')).toBe('error.retrying');
      clock.increment(1);
      expect(stateOf(spawned.manager, 'failing')).not.toBe('error.retrying');
    }
    const error = await outcome;
    expect(stateOf(spawned.manager, 'failing')).toBe('error.failed');
    expect(spawned.transports).toBe(3);
    expect(error.cause).toMatchObject({ name: 'ExitedAtStartError', exitCode: 1, signal: null });

    const person = explainFailure('failing', error);
    expect(person).toMatchObject({ code: 'CONNECT_FAILED', stderrTail: 'notes-server: NOTES_DIR is not set' });
    expect(person.hint).toMatch(/^its command fails at start, and trying again will likely fail the same way until that is fixed: check "command", "args" or "env"/);
    const model = loadFailureText('failing', spawned.manager.getState('failing'), error, 'library');
    expect(model).toMatch(/What you can do: the server's command fails at start, and calling load_mcp again will likely fail the same way until its command or config is fixed/);
    expect(`${person.hint}\n${model}`).not.toContain('will not help');
  });
});

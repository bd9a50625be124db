/**
 * A 2026-07-28 server asks for input by answering `input_required`, and the client hands every
 * request of a round to the handlers at once: each may be a form a person fills in. A server that
 * asks for thousands in one round gets none of them asked: the call fails with the count, and the
 * connection stays. A round of a few is answered as before. A tool call that became a task (the
 * Tasks extension) is held to the same number: its task is cancelled instead.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { MAX_INPUT_REQUESTS_PER_ROUND } from '../src/connection/input-request-limit.js';
import { rejectionOf } from './support/fixtures.js';
import { modernStdio } from './support/modern-server.js';

const TASK_INPUT_FLOOD = fileURLToPath(new URL('./fixtures/task-input-flood.mjs', import.meta.url));

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

function managerCounting(asked: { count: number }): McpConnectionManager {
  manager = new McpConnectionManager({
    logger: silentLogger,
    handlers: {
      elicitation: async () => {
        asked.count++;
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  });
  return manager;
}

it('fails a call whose server asks for thousands of inputs in one round, asking none of them', async () => {
  const asked = { count: 0 };
  const client = managerCounting(asked);
  await client.connect('modern', modernStdio('--asks-many'));
  const error = await rejectionOf(client.callTool('modern', 'ask-many', { count: 5000 }));
  expect(error.message).toMatch(`the server asked for 5000 inputs in one round (forms, samplings, roots); at most ${MAX_INPUT_REQUESTS_PER_ROUND} are answered, so none was asked`);
  expect(asked.count).toBe(0);
  expect(client.getState('modern')).toBe('connected');
});

it('answers a round of as many inputs as the limit', async () => {
  const asked = { count: 0 };
  const client = managerCounting(asked);
  await client.connect('modern', modernStdio('--asks-many'));
  const result = await client.callTool('modern', 'ask-many', { count: MAX_INPUT_REQUESTS_PER_ROUND });
  expect(result.content).toEqual([{ type: 'text', text: `${MAX_INPUT_REQUESTS_PER_ROUND} names` }]);
  expect(asked.count).toBe(MAX_INPUT_REQUESTS_PER_ROUND);
});

it("cancels a task that asks for thousands of inputs at once, asking none of them", async () => {
  const asked = { count: 0 };
  const client = managerCounting(asked);
  await client.connect('tasks', { command: process.execPath, args: [TASK_INPUT_FLOOD] });
  const error = await rejectionOf(client.callTool('tasks', 'flood', {}));
  expect(error.message).toMatch(`the server asked for 5000 inputs in one round (forms, samplings, roots); at most ${MAX_INPUT_REQUESTS_PER_ROUND} are answered, so none was asked; the task was cancelled (tasks/cancel)`);
  expect(asked.count).toBe(0);
  expect((await client.callTool('tasks', 'cancels', {})).content).toEqual([{ type: 'text', text: '1' }]);
});

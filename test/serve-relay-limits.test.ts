/**
 * Limits on what `serve` relays from downstream servers up to its host: how long a relayed
 * request may wait for the host's answer. The host here is an SDK `Client` over an in-memory
 * pair whose handlers never answer (a person who has not answered yet); time is vitest's fake clock.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_HOST_HANDLER_TIMEOUT_MS } from '../src/connection/host-handlers.js';
import { hostRequestHandlers, SERVE_CAPABILITIES } from '../src/serve/proxy.js';

const closers: Array<() => Promise<void>> = [];

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  vi.useRealTimers();
});

/** serve's upstream Server, connected to a host that offers sampling, elicitation and roots and never answers them. */
async function hostThatNeverAnswers() {
  const upstream = new Server({ name: 'mcp-statechart', version: '1' }, { capabilities: SERVE_CAPABILITIES });
  const host = new Client({ name: 'host', version: '1' }, { capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } });
  const never = () => new Promise<never>(() => {});
  host.setRequestHandler('sampling/createMessage', never);
  host.setRequestHandler('elicitation/create', never);
  host.setRequestHandler('roots/list', never);
  const [hostSide, serveSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([upstream.connect(serveSide), host.connect(hostSide)]);
  closers.push(() => host.close());
  return hostRequestHandlers(upstream);
}

/** Settles the outcome of `answer` into a value the test can look at while time is advanced. */
function outcome(answer: unknown): { error?: Error; settled: boolean } {
  const state: { error?: Error; settled: boolean } = { settled: false };
  Promise.resolve(answer).then(
    () => (state.settled = true),
    (error: Error) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe('a relayed request waiting for the host', () => {
  it('waits the documented 10 minutes (a person may be answering), not the SDK default of 60 s: sampling, elicitation and roots', async () => {
    const handlers = await hostThatNeverAnswers();
    const context = { server: 'notes', signal: new AbortController().signal };
    const waiting = [
      outcome(handlers.sampling!({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 }, context)),
      outcome(handlers.elicitation!({ mode: 'form', message: 'name?', requestedSchema: { type: 'object', properties: {} } }, context)),
      outcome(typeof handlers.roots === 'function' ? handlers.roots(context) : undefined),
    ];
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(waiting.map((request) => request.settled)).toEqual([false, false, false]);
    await vi.advanceTimersByTimeAsync(DEFAULT_HOST_HANDLER_TIMEOUT_MS);
    expect(waiting.map((request) => request.error?.message)).toEqual(Array(3).fill(expect.stringMatching(/timed out/i)));
  });
});

/**
 * `serve --http --health [host:]port`: `/healthz` and `/readyz` on a listener of their own,
 * answered by a worker thread. On the main listener they share the event loop with the calls, so
 * a replica saturated by calls answered its balancer's check late and was taken out (HAProxy then
 * answered 503 itself, with no replica left). The main thread posts a beat every second — the
 * body of `/healthz` and whether it drains — and the worker answers from the latest one: at once
 * however busy the calls keep the main thread, and `/readyz` fails (503) when the replica drains
 * or when no beat came for `stallMs` (an event loop stuck, not just busy).
 */
import { Worker } from 'node:worker_threads';

/** No beat for this long: the replica's event loop is stuck, and /readyz says so. */
export const HEALTH_STALL_MS = 15_000;
const BEAT_MS = 1_000;
const START_LIMIT_MS = 10_000;

export interface HealthBeat {
  /** `/healthz`'s body: names and counts only, no secrets. */
  health: Record<string, unknown>;
  draining: boolean;
}

export interface HealthListener {
  host: string;
  port: number;
  /** Posts the replica's state now (besides the beat every second). */
  beat(): void;
  close(): Promise<void>;
}

// Plain CommonJS run with `eval`: the worker loads no module of ours, under tsx or from dist alike.
const WORKER_SOURCE = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
let last = { health: {}, draining: false };
let beatAt = Date.now();
parentPort.on('message', (beat) => { last = beat; beatAt = Date.now(); });
const answer = (response, status, value) => {
  const text = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
};
const server = createServer((request, response) => {
  request.resume();
  const path = (request.url || '/').split('?')[0];
  const beatAgeMs = Date.now() - beatAt;
  const stalled = beatAgeMs > workerData.stallMs;
  if (request.method === 'GET' && path === '/readyz') return answer(response, last.draining || stalled ? 503 : 200, { ready: !last.draining && !stalled, ...(stalled && { stalledMs: beatAgeMs }) });
  if (request.method === 'GET' && path === '/healthz') return answer(response, 200, { ...last.health, draining: last.draining, beatAgeMs });
  answer(response, 404, { error: 'not found: this listener answers /healthz and /readyz' });
});
server.headersTimeout = 10000;
server.requestTimeout = 10000;
server.once('error', (error) => parentPort.postMessage({ error: error.message }));
server.listen(workerData.port, workerData.host, () => {
  const address = server.address();
  parentPort.postMessage({ listening: { host: address.address, port: address.port } });
});
`;

export async function startHealthListener(
  address: { host: string; port: number },
  state: () => HealthBeat,
  { stallMs = HEALTH_STALL_MS }: { stallMs?: number } = {},
): Promise<HealthListener> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...address, stallMs } });
  // A worker that could not listen would keep the process running: it is ended with the failure.
  const bound = await new Promise<{ host: string; port: number }>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the health listener did not start within ${START_LIMIT_MS / 1000} s`)), START_LIMIT_MS);
    worker.once('message', (message: { listening?: { host: string; port: number }; error?: string }) => {
      clearTimeout(timer);
      if (message.listening) done(message.listening);
      else fail(new Error(`--health could not listen on ${address.host}:${address.port}: ${message.error ?? 'it did not listen'}. Stop what uses that port, or give --health another one.`));
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  const beat = () => worker.postMessage(state());
  beat();
  const beats = setInterval(beat, BEAT_MS);
  beats.unref();
  worker.unref();
  return {
    ...bound,
    beat,
    async close() {
      clearInterval(beats);
      await worker.terminate();
    },
  };
}

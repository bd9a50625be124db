/**
 * Proxies that cut the answers of chosen requests, as when the replica answering them dies
 * (test/http-call-cut-mid-stream.test.ts, test/telemetry-spans.test.ts), or hold them back until
 * the test lets them go (test/serve-http-private-lists.test.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, type PlainHttpServer } from '../fixtures/hostile-http.js';

/** How a cut answer began: an SSE head, or a JSON head and half a body. */
export type AnswerKind = 'sse' | 'json';

export interface Cuts {
  /** The requests whose answers are cut. */
  method: 'tasks/get' | 'tasks/update' | 'tools/call';
  /** How many of them, the first ones. */
  cuts: number;
  as: AnswerKind;
  /**
   * Each cut request is first passed on: 'answered', and answered upstream (the answer, not the
   * request, is lost); 'running', and cut as soon as the upstream answer's head comes, the upstream
   * request dropped with it (as a proxy does), while the server is still running it.
   */
  reached?: 'answered' | 'running';
}

/**
 * A proxy on 127.0.0.1 port 0 in front of `upstream` that cuts the answers of the first `cuts`
 * requests of `method`: the head goes out (and half a JSON body), then the connection drops, as
 * when the replica answering it dies. Everything else is passed through as it streams.
 */
export async function cuttingAnswers(upstream: string, { method, cuts, as, reached }: Cuts): Promise<PlainHttpServer & { seenAt: number[]; posted: string[] }> {
  /** When each request of `method` came, the cut ones first. */
  const seenAt: number[] = [];
  /** The body of every POST, in order. */
  const posted: string[] = [];
  const server = await listen((request, response, body) => {
    if (request.method === 'POST') posted.push(body);
    const passOn = () => passedOn(upstream, request, response, body);
    const cut = request.method === 'POST' && body.includes(`"method":"${method}"`);
    if (cut) seenAt.push(Date.now());
    if (cut && seenAt.length <= cuts) {
      void (async () => {
        if (reached === 'answered') await (await passOn()).text();
        if (reached === 'running') await passOn();
        response.writeHead(200, { 'content-type': as === 'sse' ? 'text/event-stream' : 'application/json', 'cache-control': 'no-cache' });
        if (as === 'json') response.write('{"jsonrpc":"2.0","result":{');
        response.flushHeaders();
        setTimeout(() => response.destroy(), 50);
      })().catch(() => response.destroy());
      return;
    }
    passOn()
      .then((answer) => relay(answer, response))
      .catch(() => response.destroy());
  });
  return { ...server, seenAt, posted };
}

/** One held answer: `reached` once it came from upstream (so it says what upstream knew then), sent on by `release()`. */
export interface HeldAnswer {
  reached: Promise<void>;
  release(): void;
}

/**
 * A proxy on 127.0.0.1 port 0 in front of `upstream` that passes everything through as it
 * streams, except that `hold()` keeps back the whole answer of the next request of `method`;
 * `requests()` counts the requests of `method` it passed on.
 */
export async function holdingAnswers(upstream: string, method: string): Promise<PlainHttpServer & { hold(): HeldAnswer; requests(): number }> {
  const holds: Array<{ reached(): void; released: Promise<void> }> = [];
  let requests = 0;
  const server = await listen((request, response, body) => {
    const ofMethod = request.method === 'POST' && body.includes(`"method":"${method}"`);
    if (ofMethod) requests++;
    const held = ofMethod ? holds.shift() : undefined;
    passedOn(upstream, request, response, body)
      .then(async (answer) => {
        if (!held) return relay(answer, response);
        const whole = new Response(await answer.text(), { status: answer.status, headers: answer.headers });
        held.reached();
        await held.released;
        return relay(whole, response);
      })
      .catch(() => response.destroy());
  });
  return {
    ...server,
    requests: () => requests,
    hold() {
      let reached = () => {};
      let release = () => {};
      const answer = { reached: new Promise<void>((done) => (reached = done)), release: () => release() };
      holds.push({ reached, released: new Promise<void>((done) => (release = done)) });
      return answer;
    },
  };
}

/** `request` sent on to `upstream`, dropped when the client drops `response`. */
function passedOn(upstream: string, request: IncomingMessage, response: ServerResponse, body: string): Promise<Response> {
  const headers = Object.entries(request.headers).flatMap(([name, value]) =>
    value === undefined || ['host', 'connection', 'content-length'].includes(name) ? [] : [[name, String(value)] as [string, string]],
  );
  const dropped = new AbortController();
  response.once('close', () => dropped.abort());
  return fetch(upstream, { method: request.method, headers, body: body.length > 0 ? body : undefined, signal: dropped.signal });
}

/** Writes an upstream answer to the client as it streams. */
async function relay(answer: Response, response: ServerResponse): Promise<void> {
  const answerHeaders: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) answerHeaders[name] = value;
  });
  response.writeHead(answer.status, answerHeaders);
  const reader = answer.body?.getReader();
  for (let part = await reader?.read(); part && !part.done; part = await reader!.read()) response.write(part.value);
  response.end();
}

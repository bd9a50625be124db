/**
 * The redirect target of a login (RFC 8252 §7.3): a one-shot HTTP listener on 127.0.0.1. It
 * answers the first request to /callback that carries this login's `state` and stops listening. A
 * response without that state is not our authorization (any local process or web page can send one,
 * RFC 6749 §10.12): it gets a 400 page and is ignored, so it cannot end the login; the login keeps
 * waiting for the browser, and gives up after `MAX_IGNORED_RESPONSES` of them, or at its timeout.
 * What the response says (its code or error, its `iss`) is for the login to check; checks that need no
 * request (`check`) run before the page is answered, so the page never says a refused response was
 * received. The page is answered at once: a browser opener that waits for it must not wait for the
 * code exchange, which runs only after the opener returns.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CALLBACK_PATH = '/callback';

export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port>/callback` */
  redirectUrl: string;
  /** The authorization response's parameters: a `code` that came back with `expectedState`, or an `error`. */
  waitForResponse(expectedState: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export interface LoopbackOptions {
  /**
   * This login's `state`, once it is known. A response without it is answered 400 and ignored
   * (before the state is known, every response is). Without this option, such a response ends the
   * wait (`waitForResponse` rejects).
   */
  expectedState?: () => string | undefined;
  /**
   * Judges a response with the login's `state` before its page is answered: an error ends the login (`waitForResponse`
   * rejects with it) and the page says the login failed. It must not block: the page waits for it.
   */
  check?: (response: URLSearchParams) => Error | undefined;
}

type Callback = { response: URLSearchParams } | { error: Error };

/** Responses without the login's `state` a login ignores before it gives up: enough for a few stray tabs, not a flood. */
export const MAX_IGNORED_RESPONSES = 20;

/** Starts the listener; `port` 0 (the default) picks a free one. */
export async function startLoopbackReceiver(port = 0, options: LoopbackOptions = {}): Promise<LoopbackReceiver> {
  let deliver!: (callback: Callback) => void;
  const arrived = new Promise<Callback>((resolve) => (deliver = resolve));
  let answered = false;
  let ignored = 0;

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) return page(res, 404, 'Not found.');
    if (answered) return page(res, 409, 'This login has already been answered. You can close this tab.');
    if (options.expectedState && !carriesState(url.searchParams, options.expectedState())) {
      if (++ignored < MAX_IGNORED_RESPONSES) return page(res, 400, IGNORED_PAGE);
      answered = true;
      deliver({ error: new Error(TOO_MANY_IGNORED) });
      page(res, 400, IGNORED_PAGE);
      server.close();
      return;
    }
    answered = true;
    const refusal = options.check?.(url.searchParams);
    deliver(refusal ? { error: refusal } : { response: url.searchParams });
    if (refusal) page(res, 400, REFUSED_PAGE);
    else if (url.searchParams.has('code')) page(res, 200, 'Authorization received. You can close this tab and return to the terminal.');
    else page(res, 400, 'Authorization failed. You can close this tab and look at the terminal.');
    // One answer is all a login needs: stop accepting connections.
    server.close();
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const { port: actualPort } = server.address() as AddressInfo;

  return {
    redirectUrl: `http://127.0.0.1:${actualPort}${CALLBACK_PATH}`,
    async waitForResponse(expectedState, { timeoutMs = 300_000, signal } = {}) {
      let timer: NodeJS.Timeout | undefined;
      const stop = new Promise<Callback>((resolve) => {
        timer = setTimeout(() => resolve({ error: new Error(`no authorization arrived within ${Math.round(timeoutMs / 1000)} s`) }), timeoutMs);
        const cancelled = () => resolve({ error: new Error('the login was cancelled') });
        // Cancelled before the wait began (while the browser opener ran): an abort already past fires no event.
        if (signal?.aborted) cancelled();
        else signal?.addEventListener('abort', cancelled, { once: true });
      });
      try {
        const callback = await Promise.race([arrived, stop]);
        if ('error' in callback) throw callback.error;
        const { response } = callback;
        const wrongState = stateMismatch(response, expectedState);
        if (wrongState) throw wrongState;
        return response;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const IGNORED_PAGE = [
  'This authorization response was ignored: it does not belong to the login running in the terminal, and nothing from it was used.',
  'If you are logging in, finish the login in the tab the terminal opened (or open the URL it printed); the login is still waiting for it.',
].join('\n');

const TOO_MANY_IGNORED = `${MAX_IGNORED_RESPONSES} authorization responses without this login's "state" arrived at its loopback redirect, so the login gave up: another program on this computer, or a web page open in the browser, keeps sending them. Close such pages and run the login again`;

const REFUSED_PAGE = [
  'Login failed: this authorization response was refused, and nothing from it was used or stored.',
  'It came from another authorization server than the one the login asked.',
  'Run the login again from the terminal. If it fails the same way, check the server\'s OAuth settings and its authorization server; the terminal says more.',
].join('\n');

/**
 * The error for a response that came back without this login's `state`: not our authorization,
 * maybe a forged one. An error response carries the state too (RFC 6749 §4.1.2.1); without it,
 * any local process or web page could end the login with a text of its own shown as the server's.
 */
function stateMismatch(response: URLSearchParams, expectedState: string): Error | undefined {
  if (carriesState(response, expectedState)) return undefined;
  return new Error('the authorization response did not carry this login\'s "state"; it was ignored');
}

function carriesState(response: URLSearchParams, expectedState: string | undefined): boolean {
  return expectedState !== undefined && response.get('state') === expectedState;
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`${text}\n`);
}

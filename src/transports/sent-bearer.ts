/**
 * The OAuth access tokens an http/sse transport sent, so that a server's successful answer that
 * repeats one (a "whoami" tool echoing its request) reaches neither the model nor the CLI: the
 * token is the login's, never the server's data. Noted from the requests, whatever the provider
 * (the stored login or an application's `providerFor`). The last two are kept: a request sent
 * just before a refresh is answered with the earlier token in it.
 */
import type { FetchLike, Transport } from '@modelcontextprotocol/client';

const KEPT = 2;

const sentBy = new WeakMap<Transport, string[]>();

/** `base`, noting in `sent` the bearer token of each request it sends. */
export function notingBearer(base: FetchLike, sent: string[]): FetchLike {
  return (input, init) => {
    const token = /^Bearer\s+(\S+)$/i.exec(new Headers(init?.headers).get('authorization') ?? '')?.[1];
    if (token && sent[0] !== token) {
      sent.unshift(token);
      sent.length = Math.min(sent.length, KEPT);
    }
    return base(input, init);
  };
}

export function rememberBearer(transport: Transport, sent: string[]): void {
  sentBy.set(transport, sent);
}

/** The access tokens `transport` sent lately, newest first; none for a transport without OAuth. */
export function bearerTokensSentBy(transport: Transport): readonly string[] {
  return sentBy.get(transport) ?? [];
}

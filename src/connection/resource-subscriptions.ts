import type { Client } from '@modelcontextprotocol/client';
import type { McpRequestOptions } from '../../machines/types.js';
import { toError } from '../../machines/to-error.js';
import type { Logger } from '../logger.js';
import { redactError } from '../redact.js';
import { capErrorText } from '../text-limits.js';
import type { ListenStream } from './listen-stream.js';
import { sdkRequestOptions } from './sdk-request-options.js';
import { quoted } from '../../machines/control-characters.js';

export interface SubscribedResources {
  server: string;
  client: Client;
  logger: Logger;
  secrets: readonly string[];
  /** A 2026-07-28 server's `subscriptions/listen` stream (list-following.ts): resources are added to its filter. */
  stream: () => ListenStream | undefined;
  /** Aborted as the session closes: a refusal after it is not news. */
  closed: AbortSignal;
}

/** What a server without `resources.subscribe` is refused with (the request's failure says which server and resource). */
function noSubscriptionsError(): Error {
  return new Error('the server does not offer resource subscriptions (its capabilities lack resources.subscribe)');
}

/**
 * Resource subscriptions in both eras: `resources/subscribe` on a legacy server, the listen
 * stream's filter on a 2026-07-28 one; and, on a new connection, the ones the last one had.
 */
export class ResourceSubscriptions {
  constructor(private readonly parts: SubscribedResources) {}

  subscribe(uri: string, options: McpRequestOptions = {}): Promise<void> {
    if (!this.offered()) return Promise.reject(noSubscriptionsError());
    const stream = this.parts.stream();
    if (stream) return stream.subscribe(uri);
    return this.parts.client.subscribeResource({ uri }, sdkRequestOptions(options)).then(() => undefined);
  }

  unsubscribe(uri: string, options: McpRequestOptions = {}): Promise<void> {
    if (!this.offered()) return Promise.reject(noSubscriptionsError());
    const stream = this.parts.stream();
    if (stream) return stream.unsubscribe(uri);
    return this.parts.client.unsubscribeResource({ uri }, sdkRequestOptions(options)).then(() => undefined);
  }

  /** On a new connection: the resources the last one was subscribed to; a refusal is logged, not thrown. */
  resubscribe(uris: readonly string[]): void {
    const { server, logger, secrets, closed } = this.parts;
    for (const uri of uris) {
      this.subscribe(uri).catch((error: unknown) => {
        if (closed.aborted) return;
        const message = capErrorText(redactError(toError(error), secrets).message);
        logger.warn(`MCP server ${quoted(server)} refused resources/subscribe ${uri} on the new connection: ${message}`);
      });
    }
  }

  private offered(): boolean {
    return this.parts.client.getServerCapabilities()?.resources?.subscribe === true;
  }
}

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { LoggingLevel, Root } from '@modelcontextprotocol/sdk/types.js';
import { McpServerError, notConnectedError } from '../machines/errors.js';
import type { HostBridge } from './connection/host-handlers.js';
import type { Logger } from './logger.js';

/** A connected server's SDK client, as the manager finds it. */
export type ClientLookup = (server: string) => Client | undefined;

/**
 * The host settings the manager keeps across connections: roots, the log level asked of
 * servers, and resource subscriptions. Each is sent to the servers connected now and again to
 * every server that (re)connects, since a new session starts with none of them.
 */
export class HostControls {
  private readonly bridge: HostBridge;
  private readonly clientOf: ClientLookup;
  private readonly connectedServers: () => string[];
  private readonly logger: Logger;
  private loggingLevel?: LoggingLevel;
  private readonly subscriptions = new Map<string, Set<string>>();

  constructor(bridge: HostBridge, clientOf: ClientLookup, connectedServers: () => string[], logger: Logger) {
    this.bridge = bridge;
    this.clientOf = clientOf;
    this.connectedServers = connectedServers;
    this.logger = logger;
  }

  /** Replaces the roots and sends `notifications/roots/list_changed` to every connected server that was told about roots. */
  async setRoots(roots: Root[]): Promise<void> {
    this.bridge.setRoots(roots);
    await this.forEachConnected(async (server, client) => {
      if (this.bridge.declaredRoots(client)) await this.quietly(server, 'roots/list_changed', () => client.sendRootsListChanged());
    });
  }

  /** Asks every connected server that declares `logging` (and each that connects later) to send messages from `level` up. */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    this.loggingLevel = level;
    await this.forEachConnected((server, client) => this.applyLoggingLevel(server, client));
  }

  async subscribeResource(server: string, uri: string): Promise<void> {
    const client = this.subscribable(server);
    await client.subscribeResource({ uri });
    const uris = this.subscriptions.get(server) ?? new Set();
    uris.add(uri);
    this.subscriptions.set(server, uris);
  }

  async unsubscribeResource(server: string, uri: string): Promise<void> {
    this.subscriptions.get(server)?.delete(uri);
    const client = this.clientOf(server);
    if (client) await client.unsubscribeResource({ uri });
  }

  /** A server (re)connected: give its new session the level and subscriptions the host asked for. */
  async reapply(server: string): Promise<void> {
    const client = this.clientOf(server);
    if (!client) return;
    await this.applyLoggingLevel(server, client);
    for (const uri of this.subscriptions.get(server) ?? []) {
      await this.quietly(server, `resources/subscribe ${uri}`, () => client.subscribeResource({ uri }));
    }
  }

  private async applyLoggingLevel(server: string, client: Client): Promise<void> {
    const level = this.loggingLevel;
    if (level === undefined || !client.getServerCapabilities()?.logging) return;
    await this.quietly(server, 'logging/setLevel', () => client.setLoggingLevel(level));
  }

  private subscribable(server: string): Client {
    const client = this.clientOf(server);
    if (!client) throw notConnectedError(server, 'not connected');
    if (!client.getServerCapabilities()?.resources?.subscribe) {
      throw new McpServerError(
        'REQUEST_FAILED',
        server,
        `MCP server "${server}" does not offer resource subscriptions (its capabilities lack resources.subscribe).`,
      );
    }
    return client;
  }

  private async forEachConnected(run: (server: string, client: Client) => Promise<void>): Promise<void> {
    await Promise.all(
      this.connectedServers().map((server) => {
        const client = this.clientOf(server);
        return client ? run(server, client) : undefined;
      }),
    );
  }

  /** A setting one server refuses is logged, not thrown: the others still get it. */
  private async quietly(server: string, what: string, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      this.logger.warn(`MCP server "${server}" refused ${what}: ${(error as Error).message}`);
    }
  }
}

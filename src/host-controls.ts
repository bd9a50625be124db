import type { Client } from '@modelcontextprotocol/client';
import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { HostBridge, RootsSource } from './connection/host-handlers.js';
import type { Logger } from './logger.js';
import { quoted } from '../machines/control-characters.js';

/** A connected server's SDK client, as the manager finds it. */
export type ClientLookup = (server: string) => Client | undefined;

/**
 * The host settings the manager keeps across connections: roots and the log level asked of
 * servers. Each is sent to the servers connected now; the log level again to every server that
 * (re)connects, since a new session starts without it. (Resource subscriptions are the server
 * chart's: see `subscriptions` in machines/server.machine.ts.)
 */
export class HostControls {
  private readonly bridge: HostBridge;
  private readonly clientOf: ClientLookup;
  private readonly connectedServers: () => string[];
  private readonly logger: Logger;

  constructor(bridge: HostBridge, clientOf: ClientLookup, connectedServers: () => string[], logger: Logger) {
    this.bridge = bridge;
    this.clientOf = clientOf;
    this.connectedServers = connectedServers;
    this.logger = logger;
  }

  /**
   * Replaces the roots and sends `notifications/roots/list_changed` to every connected 2025-era
   * server that was told about roots. 2026-07-28 removed that notice (changelog, major change 5)
   * and has nothing in its place: its server asks for roots inside a call (an input request),
   * and is answered from the new roots then. Resolves once the notices are sent: a server reads
   * the new roots later, when it chooses, and nothing tells the client it has.
   */
  async setRoots(roots: RootsSource): Promise<void> {
    this.bridge.setRoots(roots);
    await this.forEachConnected(async (server, client) => {
      if (this.bridge.declaredRoots(client) && client.getProtocolEra() !== 'modern') await this.quietly(server, 'roots/list_changed', () => client.sendRootsListChanged());
    });
  }

  /** Asks every connected server that declares `logging` (and each that connects later) to send messages from `level` up. */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    this.bridge.loggingLevel = level;
    await this.forEachConnected((server, client) => this.applyLoggingLevel(server, client));
  }

  /** A server (re)connected: give its new session the level the host asked for. */
  async reapply(server: string): Promise<void> {
    const client = this.clientOf(server);
    if (client) await this.applyLoggingLevel(server, client);
  }

  private async applyLoggingLevel(server: string, client: Client): Promise<void> {
    const level = this.bridge.loggingLevel;
    // A 2026-07-28 server has no logging/setLevel: it gets the level with each request (session.ts).
    if (level === undefined || !client.getServerCapabilities()?.logging || client.getProtocolEra() === 'modern') return;
    await this.quietly(server, 'logging/setLevel', () => client.setLoggingLevel(level));
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
      this.logger.warn(`MCP server ${quoted(server)} refused ${what}: ${(error as Error).message}`);
    }
  }
}

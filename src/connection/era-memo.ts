import type { PriorDiscovery } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../machines/types.js';

/**
 * The era each server spoke at its last connect, so a reconnect goes straight to it
 * (`client.connect(transport, { prior })`) instead of probing again. Kept in memory with the
 * definition it was learnt for: a changed entry is a new server. A connect that fails on a
 * remembered era forgets it, so the next attempt probes again.
 */
export class EraMemo {
  private readonly eras = new Map<string, { definition: string; prior: PriorDiscovery }>();

  recall(server: string, config: McpServerConfig): PriorDiscovery | undefined {
    const known = this.eras.get(server);
    return known && known.definition === JSON.stringify(config) ? known.prior : undefined;
  }

  remember(server: string, config: McpServerConfig, prior: PriorDiscovery): void {
    this.eras.set(server, { definition: JSON.stringify(config), prior });
  }

  forget(server: string): void {
    this.eras.delete(server);
  }
}

import type { PriorDiscovery } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../machines/types.js';

/**
 * A place that keeps eras beyond this process (the manifest index: src/manifest-index). `config`
 * is the server's definition as it connects, so a store that keys by definition files the era
 * under the same one as the manifest.
 */
export interface EraStore {
  recall(server: string, config: McpServerConfig): PriorDiscovery | undefined;
  /** The era was refused by the server: the next process must probe again. */
  forget(server: string, config: McpServerConfig): void;
}

/**
 * The era each server spoke at its last connect, so a reconnect goes straight to it
 * (`client.connect(transport, { prior })`) instead of probing again. Kept in memory with the
 * definition it was learnt for: a changed entry is a new server. Stores added with `addStore`
 * (the manifest index, which records the era with the manifest) answer what this process has
 * not learnt yet, so a new process does not probe either. A connect that fails on a remembered
 * era forgets it everywhere, so the next attempt probes again.
 */
/**
 * Server names remembered at most: a long-lived process whose config keeps adding and removing
 * servers under new names would otherwise keep one entry per name it ever connected. Past it
 * the name connected longest ago goes; a forgotten one costs a probe at its next connect.
 */
export const MAX_REMEMBERED_SERVERS = 1_000;

export class EraMemo {
  private readonly eras = new Map<string, { definition: string; prior: PriorDiscovery }>();
  private readonly stores = new Set<EraStore>();

  /** What this process learnt for this definition, else what a store kept for it. */
  recall(server: string, config: McpServerConfig): PriorDiscovery | undefined {
    const learnt = this.learnt(server, config);
    if (learnt) return learnt;
    for (const store of this.stores) {
      const kept = store.recall(server, config);
      if (kept) return kept;
    }
    return undefined;
  }

  /** What this process learnt for this definition (what a store should record with its manifest). */
  learnt(server: string, config: McpServerConfig): PriorDiscovery | undefined {
    const known = this.eras.get(server);
    return known && known.definition === JSON.stringify(config) ? known.prior : undefined;
  }

  remember(server: string, config: McpServerConfig, prior: PriorDiscovery): void {
    // Deleted first so that the Map's order is the order of the last connect.
    this.eras.delete(server);
    this.eras.set(server, { definition: JSON.stringify(config), prior });
    const oldest = this.eras.keys().next();
    if (this.eras.size > MAX_REMEMBERED_SERVERS && !oldest.done) this.eras.delete(oldest.value);
  }

  forget(server: string, config: McpServerConfig): void {
    this.eras.delete(server);
    for (const store of this.stores) store.forget(server, config);
  }

  /** Returns a function that takes the store out again. */
  addStore(store: EraStore): () => void {
    this.stores.add(store);
    return () => this.stores.delete(store);
  }
}

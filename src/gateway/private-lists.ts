/**
 * `cacheScope: "private"` lists in `serve --http`: a list a server calls private is never served
 * from one caller's reading to another. Every identity that uses such a server gets a listing
 * read for it (on the shared connection, when its request comes), kept for that identity only,
 * until the server's lists change, it reconnects, or the listing's `ttlMs` is up. Outside a
 * caller's request (search's shared ranking, the definitions) a private list reads as empty.
 *
 * The loader tools are built per policy, not per identity, so the caller rides in an
 * AsyncLocalStorage around each request (`asCaller`), and the manager the tools are given
 * (`manager`) answers `getManifest`/`connect` with that caller's own listing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/client';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../machines/options.js';
import type { McpServerManifest } from '../../machines/types.js';
import { Deadline } from '../connection/deadline.js';
import { listManifest, type ListKind } from '../connection/manifest.js';
import type { Logger } from '../logger.js';
import type { LoaderToolsManager } from '../tools/types.js';
import { quoted } from '../../machines/control-characters.js';

/** Listings kept at most (identity × server); one more drops the oldest, read again when next used. */
export const MAX_PRIVATE_LISTINGS = 1_024;

/**
 * Readings of one request superseded in a row (its slot dropped as the server's lists changed
 * while each ran) before the last is kept anyway: a server announcing changes faster than a
 * listing takes would otherwise leave the request waiting forever.
 */
export const MAX_SUPERSEDED_READINGS = 3;

const LIST_KINDS: readonly ListKind[] = ['tools', 'resources', 'resourceTemplates', 'prompts'];

function privateKinds(manifest: McpServerManifest | undefined): ListKind[] {
  const freshness = manifest?.freshness;
  return freshness ? LIST_KINDS.filter((kind) => freshness[kind]?.cacheScope === 'private') : [];
}

/** The manifest with its private lists emptied: what anyone but the identity it was read for may see. */
function withheld(manifest: McpServerManifest, kinds: readonly ListKind[]): McpServerManifest {
  const copy: McpServerManifest = { ...manifest };
  for (const kind of kinds) (copy[kind] as unknown[]) = [];
  return copy;
}

interface OwnListing {
  manifest: McpServerManifest;
  /** Read again from this time (ms since the epoch): the shortest `ttlMs` of its private lists. */
  staleAt: number;
}

export class PrivateLists {
  /** The manager to build the loader tools with. */
  readonly manager: LoaderToolsManager;
  /** Whose request runs, and the one server whose private lists it may see (its own copy). */
  private readonly caller = new AsyncLocalStorage<{ identity: string; server?: string }>();
  private readonly listings = new Map<string, OwnListing>();
  /**
   * Each slot's latest reading under way. One that finishes after a later one began, or after its
   * slot was dropped, may predate a change (a tool added meanwhile): it is not kept.
   */
  private readonly readings = new Map<string, Promise<McpServerManifest>>();
  private readonly stops: Array<() => void>;
  private readonly warnedStorming = new Set<string>();

  constructor(
    private readonly shared: LoaderToolsManager,
    private readonly logger: Logger,
  ) {
    const forget = ({ server }: { server: string }) => this.forget(server);
    this.stops = [shared.on('mcp.manifestChanged', forget), shared.on('mcp.stateChanged', forget)];
    this.manager = {
      configure: (...args) => shared.configure(...args),
      connect: async (server, ...rest) => {
        const connected = await shared.connect(server, ...rest);
        await this.prepare(server);
        return this.manifestFor(server) ?? withheld(connected, privateKinds(connected));
      },
      disconnect: (server) => shared.disconnect(server),
      callTool: (...args) => shared.callTool(...args),
      readResource: (...args) => shared.readResource(...args),
      getState: (server) => shared.getState(server),
      getManifest: (server) => this.manifestFor(server),
      getError: (server) => shared.getError(server),
      serverStatus: (server) => shared.serverStatus(server),
      touch: (server) => shared.touch(server),
      on: (...args) => shared.on(...args),
      getClient: (server) => shared.getClient(server),
      // A private tools list is the caller's own: it is read again for the caller too.
      rereadTools: async (server) => {
        await shared.rereadTools(server);
        await this.prepare(server);
      },
      ...(shared.eras && { eras: shared.eras }),
    };
  }

  /**
   * Runs one request of `identity` about `server` (undefined for search, which must not see one
   * identity's copy): a connected server whose lists are private is listed for it first (unless
   * it has a listing of its own already).
   */
  async asCaller<T>(identity: string, server: string | undefined, run: () => Promise<T>): Promise<T> {
    return this.caller.run({ identity, server }, async () => {
      if (server !== undefined && this.shared.getState(server) === 'connected') await this.prepare(server);
      return run();
    });
  }

  /** What `identity` may see of `server`'s lists (its own listing of the private ones), e.g. for a prompts/list it sent. */
  async manifestForCaller(identity: string, server: string): Promise<McpServerManifest | undefined> {
    return this.asCaller(identity, server, async () => this.manifestFor(server));
  }

  /** A listing that failed leaves the caller with the private lists withheld (empty), never another's. */
  private async prepare(server: string): Promise<void> {
    try {
      await this.listForCaller(server);
    } catch (error) {
      this.logger.warn(`MCP server ${quoted(server)}: its private lists could not be read for this caller: ${(error as Error).message}`);
    }
  }

  stop(): void {
    for (const stop of this.stops) stop();
    this.listings.clear();
    this.readings.clear();
  }

  private manifestFor(server: string): McpServerManifest | undefined {
    const manifest = this.shared.getManifest(server);
    const kinds = privateKinds(manifest);
    if (!manifest || kinds.length === 0) return manifest;
    // Only for the server the request names: a read for anything else (search's ranking, shared by every identity of a policy) sees none.
    const caller = this.caller.getStore();
    const own = caller?.server === server ? this.listings.get(slot(caller.identity, server)) : undefined;
    return own?.manifest ?? withheld(manifest, kinds);
  }

  /**
   * The caller's own listing of a server whose lists are private, read now unless it has a fresh
   * one or one is being read for it (then that reading is shared). A reading superseded (its slot
   * dropped as the lists changed) is followed by the one begun since, or by a new one; after
   * `MAX_SUPERSEDED_READINGS` in a row the last is kept anyway, or a stream of changes would leave
   * this one waiting forever.
   */
  private async listForCaller(server: string): Promise<void> {
    const identity = this.caller.getStore()?.identity;
    if (identity === undefined) return;
    const key = slot(identity, server);
    // Concurrent requests of one identity make one listing, not one each.
    let reading = this.readings.get(key) ?? this.begin(identity, server);
    for (let superseded = 1; reading; superseded++) {
      const manifest = await reading;
      if (this.listings.get(key)?.manifest === manifest) return;
      if (superseded === MAX_SUPERSEDED_READINGS) {
        // Kept for this request only: the next one reads again.
        this.warnStorming(server);
        this.keep(key, { manifest, staleAt: Date.now() });
        return;
      }
      reading = this.readings.get(key) ?? this.begin(identity, server);
    }
  }

  /** A new reading of the identity's listing, unless it needs none; kept unless its slot was dropped meanwhile (a later one may have begun since). */
  private begin(identity: string, server: string): Promise<McpServerManifest> | undefined {
    const kinds = privateKinds(this.shared.getManifest(server));
    const client = this.shared.getClient(server);
    if (kinds.length === 0 || !client) return undefined;
    const key = slot(identity, server);
    const known = this.listings.get(key);
    if (known && Date.now() < known.staleAt) return undefined;
    const reading: Promise<McpServerManifest> = this.read(identity, server, client, kinds)
      .then((manifest) => {
        if (this.readings.get(key) === reading) this.keep(key, { manifest, staleAt: staleAt(manifest, kinds) });
        return manifest;
      })
      .finally(() => {
        if (this.readings.get(key) === reading) this.readings.delete(key);
      });
    this.readings.set(key, reading);
    return reading;
  }

  private keep(key: string, listing: OwnListing): void {
    const oldest = this.listings.keys().next();
    if (this.listings.size >= MAX_PRIVATE_LISTINGS && !oldest.done) this.listings.delete(oldest.value);
    this.listings.set(key, listing);
  }

  /** Once a server: a storm of changes would otherwise write a line for every request. */
  private warnStorming(server: string): void {
    if (this.warnedStorming.has(server)) return;
    this.warnedStorming.add(server);
    this.logger.warn(
      `MCP server ${quoted(server)}: its private lists changed while each of ${MAX_SUPERSEDED_READINGS} readings in a row was read; the request is answered from the last, and the next reads again.`,
    );
  }

  private async read(identity: string, server: string, client: Client, kinds: ListKind[]): Promise<McpServerManifest> {
    const deadline = new Deadline(DEFAULT_CONNECT_TIMEOUT_MS, () => new Error(`listing ${quoted(server)} for ${identity} did not finish in time`));
    try {
      return await listManifest({ server, client, logger: this.logger, deadline }, this.shared.getManifest(server), kinds);
    } finally {
      deadline.dispose();
    }
  }

  private forget(server: string): void {
    for (const key of [...this.listings.keys(), ...this.readings.keys()]) if (key.endsWith(`\0${server}`)) this.drop(key);
  }

  private drop(key: string): void {
    this.listings.delete(key);
    this.readings.delete(key);
  }
}

function slot(identity: string, server: string): string {
  return `${identity}\0${server}`;
}

function staleAt(manifest: McpServerManifest, kinds: readonly ListKind[]): number {
  const ttls = kinds.map((kind) => manifest.freshness?.[kind]?.ttlMs).filter((ttl): ttl is number => ttl !== undefined);
  return ttls.length === 0 ? Number.POSITIVE_INFINITY : Date.now() + Math.min(...ttls);
}

/**
 * A prompt get that names no server the host sees is refused "Unknown prompt", and the servers the
 * name may have meant (the text before each of its `/`s) are weighed to tell a hidden server's
 * attempt (audited) from a typo. A host writes the name, up to a message's size: only the text a
 * server's name can be is weighed, so one request of slashes costs what a short name costs.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { promptsAndResourcesOffer, type ServedServers, type ServedUse } from '../src/serve/prompts-and-resources.js';
import { SERVE_CAPABILITIES } from '../src/serve/proxy.js';
import { MAX_SERVER_NAME_CHARACTERS } from '../src/text-limits.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** No server is loaded: every prompt name is one no loaded server prefixes. */
const nothingLoaded: ServedServers = {
  getManifest: () => undefined,
  getState: () => 'idle',
  connect: () => Promise.reject(new Error('not in this test')),
  getPrompt: () => Promise.reject(new Error('not in this test')),
  readResource: () => Promise.reject(new Error('not in this test')),
  complete: () => Promise.reject(new Error('not in this test')),
  on: () => () => {},
};

/** A host connected to serve's prompts, with the policy `isAllowed` and the hidden attempts it hears of. */
async function hostOf(isAllowed: (server: string) => boolean, hidden: ServedUse[]): Promise<Client> {
  const upstream = new Server({ name: 'mcp-statechart', version: '1' }, { capabilities: SERVE_CAPABILITIES });
  promptsAndResourcesOffer(nothingLoaded, () => true, () => {}, 'serve').install(upstream, isAllowed, undefined, undefined, undefined, (use) => hidden.push(use));
  const host = new Client({ name: 'host', version: '1' });
  const [hostSide, serveSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([upstream.connect(serveSide), host.connect(hostSide)]);
  closers.push(() => host.close());
  return host;
}

describe('a prompt get naming no server the host sees', () => {
  it('weighs as the servers it may have meant only the text a server name can be, however many slashes the name holds', async () => {
    const asked: string[] = [];
    const hidden: ServedUse[] = [];
    const host = await hostOf((server) => (asked.push(server), server === 'team'), hidden);
    const name = `${'x/'.repeat(50_000)}prompt`;

    await expect(host.getPrompt({ name })).rejects.toThrow(/Unknown prompt/);

    expect(Math.max(...asked.map((server) => server.length))).toBeLessThanOrEqual(MAX_SERVER_NAME_CHARACTERS);
    expect(asked.length).toBeLessThanOrEqual(MAX_SERVER_NAME_CHARACTERS);
    expect(hidden).toEqual([{ kind: 'prompt', server: '', name }]);
  });

  it('is not told as hidden when one of the servers it may have meant is one the host sees', async () => {
    const hidden: ServedUse[] = [];
    const host = await hostOf((server) => server === 'team', hidden);

    await expect(host.getPrompt({ name: 'team/hidden/prompt' })).rejects.toThrow(/Unknown prompt/);

    expect(hidden).toEqual([]);
  });
});

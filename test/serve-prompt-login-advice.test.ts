// A prompt get or resource read that a server refuses for want of an OAuth login is answered to
// serve's host with advice its person can follow: through `serve` on stdio, to run the login on the
// machine serve runs on; through a `serve --http` gateway, to ask its operator (its caller has
// only the gateway's URL). Real manager, real OAuth fixture, the offer serve and the gateway install.
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { login } from '../src/entries/oauth.js';
import { promptsAndResourcesOffer } from '../src/serve/prompts-and-resources.js';
import { SERVE_CAPABILITIES } from '../src/serve/proxy.js';
import { afterThisTest, loginDir, oauthFixture, recordingLogger } from './fixtures/oauth-helpers.js';
import { rejectionOf } from './support/fixtures.js';

/** A host of serve's prompts and resources over a manager connected to a server whose prompts and resources need a scope the login lacks. */
async function hostOf(surface: 'serve' | 'gateway'): Promise<Client> {
  const fixture = await oauthFixture({ scopes: { '*': ['mcp:read'], 'prompts/get': ['mcp:read', 'mcp:write'], 'resources/read': ['mcp:read', 'mcp:write'] } });
  const dir = loginDir();
  await login('remote', { url: fixture.url }, { dir, openBrowser: fixture.browse, print: () => {} });
  const manager = new McpConnectionManager({ logger: recordingLogger().logger, oauth: { dir } });
  afterThisTest(() => manager.dispose());
  const offer = promptsAndResourcesOffer(manager, () => true, () => {}, surface);
  afterThisTest(() => offer.stop());
  await manager.connect('remote', { url: fixture.url });
  const upstream = new Server({ name: 'mcp-statechart', version: '1' }, { capabilities: SERVE_CAPABILITIES });
  offer.install(upstream, () => true);
  const host = new Client({ name: 'host', version: '1' });
  const [hostSide, serveSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([upstream.connect(serveSide), host.connect(hostSide)]);
  afterThisTest(() => host.close());
  return host;
}

describe("a prompt or resource that needs a login, as serve's host is told it", () => {
  it.each([
    ['serve over stdio', 'serve', /; sign in by running `mcp-statechart login remote` in a terminal on the machine mcp-statechart serve runs on \(as the account that runs it\), then ask again/],
    ['a serve --http gateway', 'gateway', /; only the operator of this MCP gateway can sign in to it, on the gateway's own machines \(`mcp-statechart login remote` on each\): ask them, then ask again/],
  ] as const)('through %s, says who can log in (it said the library\'s "run `mcp-statechart login …`")', async (_name, surface, advice) => {
    const host = await hostOf(surface);
    for (const refused of [await rejectionOf(host.getPrompt({ name: 'remote/greet' })), await rejectionOf(host.readResource({ uri: 'mcp-statechart://remote/fixture://greeting' }))]) {
      expect(refused.message).toContain('needs a wider OAuth scope');
      expect(refused.message).toMatch(advice);
      expect(refused.message).not.toMatch(/; run `mcp-statechart login/);
    }
  }, 30_000);
});

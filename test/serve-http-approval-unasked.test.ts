/**
 * `serve --http`: a call its identity's approval policy names, from a host that cannot show an
 * approval form, is refused with the reason. The host's user did not start serve and cannot change
 * its flags, so the refusal sends them to the gateway's operator (serve's --approve or their
 * identity's "approve"), not to "start serve with another --approve policy" as stdio serve says.
 * Real processes: serve --http with a gateway file, server-everything over stdio, a 2026-07-28 host
 * that declares no elicitation.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { everythingStdio, textOf } from './support/everything.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { bob: 'bob-token-5e02' };

let team: TeamGateway;

beforeAll(async () => {
  team = await startTeamGateway('approval-unasked', { everything: everythingStdio() }, { bob: { token: TOKENS.bob, approve: 'always' } });
}, 90_000);

afterAll(() => team?.close(), 60_000);

it("a host without forms, refused by its identity's \"approve\", is sent to the gateway's operator, not told to restart serve", async () => {
  const host = await team.host(TOKENS.bob);
  expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();
  const refused = textOf(await host.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'echo', arguments: { message: 'hi' } } }));
  expect(refused).toMatch(/did not run: it needs approval \(policy "always"\) and no one could be asked/);
  expect(refused).toContain("ask the gateway's operator for another approval policy");
  expect(refused).toContain('the "approve" of their identity in the gateway file');
  expect(refused).not.toContain('start serve with');
  expect(refused).not.toContain('running mcp-statechart serve');
}, 60_000);

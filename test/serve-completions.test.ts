/**
 * `serve` relays `completion/complete`: a completion for a prompt as serve names it
 * (`server/prompt`) or for a resource template as it names it (`mcp-statechart://<server>/…`) is
 * asked of that server, and its values come back. Real serve, over stdio for a 2025-era host and
 * over `--http` for a 2026-07-28 host; server-everything (which completes) and the fixture (which
 * does not) downstream.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { everythingStdio } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe } from './support/http-serve.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';
import { initializeAndLoad, startServe, type ServeHost, type ServeMessage } from './support/serve-host.js';

const ended = servesEndedAfterEachTest();

async function serveLoaded(): Promise<ServeHost> {
  const serve = ended(startServe({ everything: everythingStdio(), fixture: stdioFixture() }));
  await initializeAndLoad(serve, ['everything', 'fixture']);
  return serve;
}

type Completed = ServeMessage & { result?: { completion?: { values: string[] } } };

async function complete(serve: ServeHost, id: number, params: object): Promise<Completed> {
  serve.send({ id, method: 'completion/complete', params });
  return (await serve.answer(id)) as Completed;
}

describe('serve relays completions to a 2025-era host on stdio', () => {
  it("a prompt argument is completed by the prompt's server, with the arguments given so far as context", async () => {
    const serve = await serveLoaded();
    const prompt = { type: 'ref/prompt', name: 'everything/completable-prompt' };
    expect((await complete(serve, 10, { ref: prompt, argument: { name: 'department', value: 'E' } })).result?.completion?.values).toEqual(['Engineering']);
    const names = await complete(serve, 11, { ref: prompt, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } });
    expect(names.result?.completion?.values).toEqual(['David', 'Eve', 'Frank']);
  }, 60_000);

  it('a resource template variable is completed by the server whose template it is', async () => {
    const serve = await serveLoaded();
    serve.send({ id: 10, method: 'resources/templates/list', params: {} });
    const templates = (await serve.answer(10)) as ServeMessage & { result: { resourceTemplates: Array<{ uriTemplate: string }> } };
    const uri = templates.result.resourceTemplates.map((template) => template.uriTemplate).find((template) => template.endsWith('/text/{resourceId}'));
    expect(uri).toMatch(/^mcp-statechart:\/\/everything\//);
    // server-everything completes a resource id to itself when it is a positive integer.
    const completed = await complete(serve, 11, { ref: { type: 'ref/resource', uri }, argument: { name: 'resourceId', value: '7' } });
    expect(completed.result?.completion?.values).toEqual(['7']);
  }, 60_000);

  it('a server that does not complete answers no values, not an error', async () => {
    const serve = await serveLoaded();
    const completed = await complete(serve, 10, { ref: { type: 'ref/prompt', name: 'fixture/greet' }, argument: { name: 'name', value: 'A' } });
    expect(completed).toMatchObject({ result: { completion: { values: [] } } });
  }, 60_000);

  it('a prompt not named by a loaded server is refused, saying how prompts are named', async () => {
    const serve = await serveLoaded();
    const completed = await complete(serve, 10, { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
    expect(completed.error?.message).toContain('Prompts are named "server/prompt"');
  }, 60_000);
});

describe('serve --http relays completions to a 2026-07-28 host', () => {
  it("a prompt argument is completed by the prompt's server", async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-serve-completions-'));
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
    const serve = await startHttpServe(home, ['--config', join(home, 'mcp.json')]);
    const host = new Client({ name: 'completing-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    try {
      await host.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
      expect(host.getServerCapabilities()?.completions).toEqual({});
      expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();
      const completed = await host.complete({ ref: { type: 'ref/prompt', name: 'everything/completable-prompt' }, argument: { name: 'department', value: 'S' } });
      expect(completed.completion.values).toEqual(['Sales', 'Support']);
    } finally {
      await host.close();
      await serve.stop();
      rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);
});

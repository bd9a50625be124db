/**
 * `serve --http` bounds the calls (tools/call, and the host's own prompts/get and resources/read,
 * counted together) each identity has running at once on a replica:
 * `callsInFlight` in the gateway file (an identity's own, else the lowest of its groups'), 64 when
 * none is given. One more is answered with a tool error the model reads, naming the limit and this
 * replica, and audited `refused:calls_in_flight`; other identities are not held up, and a call
 * that answers frees its place. Without it one token's 10,000 small calls at once took a replica
 * from 255 MB to 1.08 GB. A real serve --http on 127.0.0.1 port 0 and server-everything, whose
 * long-running operation reports progress: heard once, the call is running.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callsInFlightLimitText } from '../src/gateway/calls-in-flight-limit.js';
import { parseGatewayConfig } from '../src/gateway/gateway-file.js';
import { everythingStdio, textOf } from './support/everything.js';
import { startTeamGateway, type TeamGateway } from './support/http-serve.js';

const TOKENS = { alice: 'alice-token-c41f', bob: 'bob-token-77d2', carol: 'carol-token-3e90', dave: 'dave-token-5a12' };
const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

let gateway: TeamGateway;

beforeAll(async () => {
  gateway = await startTeamGateway(
    'calls-in-flight',
    { everything: everythingStdio(), modern: { command: process.execPath, args: [MODERN_SERVER] } },
    { alice: { token: TOKENS.alice, allow: ['*'], callsInFlight: 2 }, bob: { token: TOKENS.bob, allow: ['*'] }, carol: { token: TOKENS.carol, allow: ['*'], callsInFlight: 1 },
      dave: { token: TOKENS.dave, allow: ['*'], callsInFlight: 1 },
    },
    {
      serveFlags: ['--audit', 'audit.jsonl'],
    },
  );
}, 90_000);

afterAll(async () => {
  await gateway?.close();
}, 60_000);

const echo = (message: string) => ({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'echo', arguments: { message } } });

/** Starts a long-running operation as `host`; `running` settles once its first progress is heard (the call holds its place). */
function longCall(host: Client): { running: Promise<void>; answered: Promise<Record<string, unknown>> } {
  let heard: () => void = () => {};
  const running = new Promise<void>((done) => (heard = done));
  const answered = host.callTool(
    { name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 4, steps: 4 } } },
    { onprogress: () => heard(), timeout: 60_000 },
  ) as Promise<Record<string, unknown>>;
  return { running: Promise.race([running, answered.then(() => {})]), answered };
}

async function auditLines(): Promise<Array<Record<string, unknown>>> {
  const text = await fs.readFile(path.join(gateway.home, 'audit.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('calls in flight per identity', () => {
  it("refuses one call more than the identity's callsInFlight, audits it, lets others call, and takes calls again once one answers", async () => {
    const alice = await gateway.host(TOKENS.alice);
    await alice.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
    const running = [longCall(alice), longCall(alice)];
    await Promise.all(running.map((call) => call.running));

    const refused = (await alice.callTool(echo('one too many'))) as Record<string, unknown>;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(callsInFlightLimitText('alice', 2, 'call'));
    expect(textOf(refused)).toContain('"alice" already has 2 calls running on this replica of the gateway');

    const bob = await gateway.host(TOKENS.bob);
    const bobs = (await bob.callTool(echo('from bob'))) as Record<string, unknown>;
    expect(bobs.isError).toBeFalsy();
    expect(textOf(bobs)).toContain('from bob');

    const finished = await Promise.all(running.map((call) => call.answered));
    expect(finished.map((result) => result.isError ?? false)).toEqual([false, false]);
    const again = (await alice.callTool(echo('after they answered'))) as Record<string, unknown>;
    expect(textOf(again)).toContain('after they answered');

    await expect.poll(async () => (await auditLines()).filter((line) => line.tool === 'echo').map((line) => [line.identity, line.outcome]), { timeout: 10_000 }).toEqual([
      ['alice', 'refused:calls_in_flight'],
      ['bob', 'ok'],
      ['alice', 'ok'],
    ]);
  }, 90_000);
});

describe('prompt gets and resource reads in flight per identity', () => {
  it("count with the identity's tool calls: one more is refused with a JSON-RPC error naming the limit and audited, and goes through once a place is free", async () => {
    const dave = await gateway.host(TOKENS.dave);
    await dave.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
    const prompt = { name: 'everything/simple-prompt' };
    const resource = { uri: 'mcp-statechart://everything/demo://resource/static/document/architecture.md' };
    const long = longCall(dave);
    await long.running;

    await expect(dave.getPrompt(prompt)).rejects.toThrow(callsInFlightLimitText('dave', 1, 'prompt get'));
    await expect(dave.readResource(resource)).rejects.toThrow(callsInFlightLimitText('dave', 1, 'resource read'));
    const bob = await gateway.host(TOKENS.bob);
    await bob.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
    expect((await bob.getPrompt(prompt)).messages.length).toBeGreaterThan(0);

    expect((await long.answered).isError ?? false).toBe(false);
    expect((await dave.getPrompt(prompt)).messages.length).toBeGreaterThan(0);
    expect((await dave.readResource(resource)).contents.length).toBe(1);
    await expect
      .poll(async () => (await auditLines()).filter((line) => line.identity === 'dave' && (line.prompt ?? line.uri) !== undefined).map((line) => [line.prompt ?? line.uri, line.outcome]), { timeout: 10_000 })
      .toEqual([
        ['simple-prompt', 'refused:calls_in_flight'],
        ['demo://resource/static/document/architecture.md', 'refused:calls_in_flight'],
        ['simple-prompt', 'ok'],
        ['demo://resource/static/document/architecture.md', 'ok'],
      ]);
  }, 90_000);
});

describe('"callsInFlight" in the gateway file', () => {
  it('takes a whole number from 1 to 100000 and names the field otherwise', () => {
    expect(parseGatewayConfig({ identities: { a: { callsInFlight: 16 } } })).toMatchObject({ ok: true });
    for (const wrong of [0, 1.5, '8', 100_001]) {
      expect(parseGatewayConfig({ identities: { a: { callsInFlight: wrong } } })).toEqual({
        ok: false,
        problems: ['identity "a": "callsInFlight" must be a whole number from 1 to 100000'],
      });
    }
  });

  it('names a JWT subject in the refusal with its control characters escaped, as every untrusted name', () => {
    expect(callsInFlightLimitText('bob\u001b[2J\nadmin', 8, 'call')).not.toMatch(/[\u001b\n]/);
  });
});

describe("a 2026-07-28 host's retry with its answers", () => {
  it('continues its call even when the identity is at its callsInFlight: the call was let in when it began', async () => {
    // carol may run one call; while her first call waits for her answer, a long call takes that place.
    const carol = new Client({ name: 'carol-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } });
    gateway.hosts.push(carol);
    let long: ReturnType<typeof longCall> | undefined;
    carol.setRequestHandler('elicitation/create', async () => {
      long = longCall(carol);
      await long.running;
      return { action: 'accept' as const, content: { name: 'Carol' } };
    });
    await carol.connect(new StreamableHTTPClientTransport(new URL(gateway.serve.url), { requestInit: { headers: { authorization: `Bearer ${TOKENS.carol}` } } }));
    for (const server of ['modern', 'everything']) await carol.callTool({ name: 'load_mcp', arguments: { server } });

    const asked = (await carol.callTool({ name: 'call_mcp_tool', arguments: { server: 'modern', tool: 'ask-name', arguments: {} } }, { timeout: 30_000 })) as Record<string, unknown>;

    expect(textOf(asked)).toBe('hello Carol');
    expect(asked.isError).toBeFalsy();
    expect((await long!.answered).isError ?? false).toBe(false);
  }, 90_000);
});

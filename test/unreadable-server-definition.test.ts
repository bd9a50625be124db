/**
 * A server definition or connect options that cannot be read as data (a getter that throws, a
 * Proxy, a cycle, a BigInt), given to `connect`, `configure` or sent to the registry as
 * `mcp.configure`: the caller
 * gets a TypeError naming the server, and the manager keeps working. Before, the registry threw
 * while sealing it and stopped with every server under it ("This McpConnectionManager stopped: its
 * registry failed"), and the `connect` that sent it never settled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectionManager, type Logger, type McpConnectOptions, type McpServerConfig } from '../src/index.js';
import { stdioFixture } from './support/fixtures.js';

let home: string;
let previousHome: string | undefined;
let manager: McpConnectionManager;
let errors: string[];

beforeAll(() => {
  previousHome = process.env.HOME;
  home = mkdtempSync(join(tmpdir(), 'mcp-unreadable-definition-'));
  process.env.HOME = home;
});
afterEach(async () => {
  await manager.dispose();
});
afterAll(() => {
  process.env.HOME = previousHome;
  rmSync(home, { recursive: true, force: true });
});

function newManager(): McpConnectionManager {
  errors = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message: string) => errors.push(message) };
  manager = new McpConnectionManager({ logger });
  return manager;
}

/** The settled outcome, or a failure after 5 s: a connect that never settles must fail the test, not hang it. */
async function outcomeWithin(call: () => Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5_000);
  });
  try {
    return await Promise.race([Promise.resolve().then(call), late]);
  } catch (error) {
    return error;
  } finally {
    clearTimeout(timer);
  }
}

const cyclic = (): McpServerConfig => {
  const env: Record<string, unknown> = { A: '1' };
  env.self = env;
  return { command: 'node', env } as unknown as McpServerConfig;
};
const unreadable: Array<[string, () => McpServerConfig, string]> = [
  ['a command getter that throws', () => ({ get command(): string { throw new Error('no command today'); } }) as McpServerConfig, 'no command today'],
  ['an args getter that throws', () => ({ command: 'node', get args(): string[] { throw new Error('no args today'); } }) as McpServerConfig, 'no args today'],
  ['a Proxy that throws', () => new Proxy({}, { ownKeys() { throw new Error('no keys today'); } }) as McpServerConfig, 'no keys today'],
  ['an env with a cycle', cyclic, '"self" contains itself'],
];

describe('a server definition that cannot be read as data', () => {
  it.each(unreadable)('connect with %s rejects with a TypeError naming the server, and the manager keeps working', async (_, definition, why) => {
    newManager();
    const error = await outcomeWithin(() => manager.connect('odd', definition()));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^connect: the definition of server "odd" cannot be read as data \(.*\): give plain values/);
    expect((error as Error).message).toContain(why);
    expect(await outcomeWithin(() => manager.connect('fixture', stdioFixture()).then((manifest) => manifest.tools.length > 0))).toBe(true);
    expect(errors.filter((line) => line.includes('registry failed'))).toEqual([]);
  }, 30_000);

  it('configure throws the TypeError at once and leaves the configured servers as they were', async () => {
    newManager();
    manager.configure({ fixture: stdioFixture() });
    expect(() => manager.configure({ fixture: stdioFixture(), odd: unreadable[0]![1]() })).toThrow(
      /^configure: the definition of server "odd" cannot be read as data/,
    );
    expect(await outcomeWithin(() => manager.connect('odd'))).toMatchObject({ code: 'UNKNOWN_SERVER' });
    expect(await outcomeWithin(() => manager.connect('fixture').then((manifest) => manifest.tools.length > 0))).toBe(true);
  }, 30_000);

  it('mcp.configure sent to the registry is dropped with an error in the log, and the registry keeps answering', async () => {
    newManager();
    manager.actor.send({ type: 'mcp.configure', servers: { odd: unreadable[0]![1]() }, mode: 'merge' });
    expect(errors.some((line) => line.startsWith('mcp.configure: the definition of server "odd" cannot be read as data'))).toBe(true);
    expect(await outcomeWithin(() => manager.connect('fixture', stdioFixture()).then((manifest) => manifest.tools.length > 0))).toBe(true);
  }, 30_000);
});

describe('connect options that cannot be read as data', () => {
  const throwingOptions = (): McpConnectOptions => ({ get idleTimeoutMs(): number { throw new Error('no timeout today'); } });
  const cyclicBackoff = (): McpConnectOptions => {
    const backoff: Record<string, unknown> = { initialDelayMs: 10 };
    backoff.again = backoff;
    return { backoff } as McpConnectOptions;
  };

  it.each([
    ['a getter that throws', throwingOptions, 'reading "idleTimeoutMs" threw "no timeout today"'],
    ['a backoff that contains itself', cyclicBackoff, '"again" contains itself'],
  ])('connect with options holding %s rejects with a TypeError naming the server, and the manager keeps working', async (_, options, why) => {
    newManager();
    const error = await outcomeWithin(() => manager.connect('odd', stdioFixture(), options()));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`connect: the connect options of server "odd" cannot be read as data (${why}): give plain values.`);
    expect(await outcomeWithin(() => manager.connect('fixture', stdioFixture()).then((manifest) => manifest.tools.length > 0))).toBe(true);
  }, 30_000);

  it('configure throws it at once; mcp.configure sent to the registry is dropped with it in the log', async () => {
    newManager();
    expect(() => manager.configure({ odd: stdioFixture() }, { odd: throwingOptions() })).toThrow(/^configure: the connect options of server "odd" cannot be read as data/);
    manager.actor.send({ type: 'mcp.configure', servers: { odd: stdioFixture() }, options: { odd: throwingOptions() }, mode: 'merge' });
    expect(errors.some((line) => line.startsWith('mcp.configure: the connect options of server "odd" cannot be read as data'))).toBe(true);
    expect(await outcomeWithin(() => manager.connect('fixture', stdioFixture()).then((manifest) => manifest.tools.length > 0))).toBe(true);
  }, 30_000);
});

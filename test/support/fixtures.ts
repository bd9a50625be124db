import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpStdioServerConfig } from '../../machines/types.js';
import { livingProcesses } from '../../src/transports/process-group.js';
import { createFixtureServer, type FixtureServerOptions } from '../fixtures/fixture-server.mjs';

export const STDIO_FIXTURE = fileURLToPath(new URL('../fixtures/stdio-server.mjs', import.meta.url));

/** A stdio entry that runs the fixture server with these flags. */
export function stdioFixture(...flags: string[]): McpStdioServerConfig {
  return { command: process.execPath, args: [STDIO_FIXTURE, ...flags] };
}

/** A transport factory for unit tests: each connect gets a fresh in-memory fixture server. */
export function inMemoryFixture(options: FixtureServerOptions = {}) {
  const servers: ReturnType<typeof createFixtureServer>[] = [];
  const factory = (): Transport => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createFixtureServer(options);
    servers.push(server);
    void server.connect(serverSide);
    return clientSide;
  };
  return { factory, servers };
}

/** True while the process runs; a zombie (dead, not yet reaped) counts as gone. */
export function isRunning(pid: number): boolean {
  return livingProcesses().some((process) => process.pid === pid);
}

/** Every living descendant of this test process. */
export function descendantsOfThisProcess(): number[] {
  const living = livingProcesses();
  const found: number[] = [];
  let frontier = [process.pid];
  while (frontier.length > 0) {
    const children = living.filter((entry) => frontier.includes(entry.ppid)).map((entry) => entry.pid);
    found.push(...children);
    frontier = children;
  }
  return found;
}

export function readPid(file: string): number {
  return Number(readFileSync(file, 'utf8').trim());
}

/** Lets promise callbacks and I/O that are already due run (a SimulatedClock does not move by itself). */
export async function settle(rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round++) await new Promise((done) => setImmediate(done));
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & { code?: string; server?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/** A transport whose every start fails the way an unreachable server does: a transient error. */
export function refusingTransport(message = 'connect ECONNREFUSED 127.0.0.1:1'): Transport {
  return {
    start: async () => {
      throw Object.assign(new Error(message), { code: 'ECONNREFUSED' });
    },
    send: async () => {},
    close: async () => {},
  };
}

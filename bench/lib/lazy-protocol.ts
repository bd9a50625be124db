/**
 * How the lazy-vs-eager children talk to bench/parts/lazy.ts. A child reads the job from the JSON
 * file named by `--job`, does it, prints one FIRST_RESULT line, and waits for a line on stdin (the
 * parent measures the process tree meanwhile) before it closes everything and exits.
 * bench/peers/lazy-langchain.mjs speaks the same protocol in plain JavaScript.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { McpServerConfig } from '../../machines/types.js';
import { stdioFixture } from './paths.js';

export interface LazyJob {
  /** Every configured server (stdio). */
  servers: Record<string, McpServerConfig>;
  /** The one server the agent uses; its `echo` tool is called. */
  use: string;
}

export interface FirstResult {
  /** From just before the client is created to the first tool result. */
  firstResultMs: number;
  /** The same moment, from process start (node boot and module loading included). */
  sinceProcessStartMs: number;
  text: string;
  /** Milestones before the first result, from the same start (ours: tools created, server loaded). */
  phases?: Record<string, number>;
}

export const FIRST_RESULT_MARKER = '@@first-result ';

/** The revision a modern-only server speaks (test/fixtures/modern-server.mjs). */
export const MODERN_REVISION = '2026-07-28';

/** The job from `--job FILE.json`, or `--servers N` fixture servers (for profiling a child alone). */
export function readJob(): LazyJob {
  const argument = (name: string) => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? process.argv[at + 1] : undefined;
  };
  const file = argument('--job');
  if (file) return JSON.parse(readFileSync(file, 'utf8')) as LazyJob;
  const count = Number(argument('--servers'));
  if (!Number.isInteger(count) || count < 1) throw new Error('usage: --job FILE.json | --servers N');
  const job: LazyJob = { servers: {}, use: 's0' };
  for (let index = 0; index < count; index++) job.servers[`s${index}`] = stdioFixture('--name', `s${index}`);
  return job;
}

/** Reports the first result, then waits until the parent has measured the tree. */
export async function reportFirstResult(startedAt: number, text: string, phases?: Record<string, number>): Promise<void> {
  const now = performance.now();
  const result: FirstResult = { firstResultMs: now - startedAt, sinceProcessStartMs: now, text, ...(phases ? { phases } : {}) };
  process.stdout.write(`${FIRST_RESULT_MARKER}${JSON.stringify(result)}\n`);
  // A line from the parent, or the end of stdin when run alone (stdin from /dev/null).
  if (process.stdin.isTTY !== true) {
    await new Promise<void>((resolve) => {
      process.stdin.once('data', () => resolve());
      process.stdin.once('end', () => resolve());
      process.stdin.resume();
    });
  }
  process.stdin.destroy();
}

/**
 * With `--profile-window FILE`, a CPU profile of the timed window alone (not node's start-up or
 * module loading), written to FILE; otherwise nothing.
 */
export async function startWindowProfile(): Promise<() => Promise<void>> {
  const at = process.argv.indexOf('--profile-window');
  const file = at >= 0 ? process.argv[at + 1] : undefined;
  if (!file) return async () => {};
  const { Session } = await import('node:inspector');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  return async () => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * Runs the MCP conformance suite's client scenarios against test/conformance/client.ts, each as
 * `npx conformance client --scenario <name>` in a subprocess, four at a time; `sse-retry` runs
 * alone afterwards because it measures reconnection timing. A scenario passes when the CLI exits 0
 * and prints "OVERALL: PASSED" (it exits 1 on any failed or warning check, a client timeout, or a
 * client that exits non-zero where the scenario does not allow it).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT = 'npx tsx test/conformance/client.ts';
/** Every client scenario of @modelcontextprotocol/conformance 0.1.13; the first test checks the list is still complete. */
const SCENARIOS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/resource-mismatch',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
];
const TIMING_SENSITIVE = ['sse-retry'];
/**
 * Scenarios of this suite version (0.1.13, the last that runs on Node 20) whose authorization
 * server metadata names an issuer other than the URL it is served for. The v2 client SDK refuses
 * such metadata (RFC 8414 §3.3, which the 2026-07-28 authorization spec requires), so our client
 * must refuse them, and saying so is what is tested.
 */
const ISSUER_MISMATCH = ['auth/metadata-var2', 'auth/metadata-var3'];
const PARALLEL = 4;
/** Per client run. The runner's default (30 s) is too short on a busy machine: npx + tsx start-up alone can take seconds. */
const CLIENT_TIMEOUT_MS = 120_000;

/** Where the runner saves each scenario's checks.json; made by the suite, removed after it. */
let outputDir = '';

interface Run {
  scenario: string;
  exitCode: number | null;
  output: string;
}

function runCli(args: string[]): Promise<Run & { scenario: '' }> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['conformance', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (exitCode) => resolve({ scenario: '', exitCode, output }));
  });
}

async function runScenario(scenario: string): Promise<Run> {
  const run = await runCli([
    'client',
    '--command',
    CLIENT,
    '--scenario',
    scenario,
    '--timeout',
    String(CLIENT_TIMEOUT_MS),
    '-o',
    join(outputDir, scenario.replace(/\//g, '_')),
  ]);
  return { ...run, scenario };
}

/** Runs `work` over `items`, at most `limit` at once, results in input order. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

function passed(run: Run): boolean {
  return run.exitCode === 0 && run.output.includes('OVERALL: PASSED');
}

/** The failed and warning checks from the saved checks.json, for the assertion message. */
function failedChecks(run: Run): string[] {
  const dir = join(outputDir, run.scenario.replace(/\//g, '_'));
  try {
    const [resultDir] = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.name === 'checks.json');
    if (!resultDir) return [];
    const checks = JSON.parse(readFileSync(join(resultDir.parentPath, 'checks.json'), 'utf8')) as Array<{ id: string; status: string; description: string }>;
    return checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING').map((check) => `${check.status} ${check.id}: ${check.description}`);
  } catch {
    return [];
  }
}

function report(runs: Run[]): string {
  return runs
    .filter((run) => !passed(run))
    .map((run) => `--- ${run.scenario} (exit ${run.exitCode})\n${failedChecks(run).join('\n')}\n${run.output.slice(-3000)}`)
    .join('\n');
}

describe('MCP conformance: client scenarios', () => {
  beforeAll(() => void (outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-results-'))));
  afterAll(() => rmSync(outputDir, { recursive: true, force: true }));

  it('covers every client scenario the suite lists', async () => {
    const listed = await runCli(['list']);
    const clientPart = listed.output.slice(listed.output.indexOf('Client scenarios'));
    const names = [...clientPart.matchAll(/^\s+- (\S+)$/gm)].map((match) => match[1]);
    expect(names.sort()).toEqual([...SCENARIOS, ...TIMING_SENSITIVE, ...ISSUER_MISMATCH].sort());
  });

  it(`passes every scenario (${PARALLEL} at a time)`, { timeout: 20 * 60_000 }, async () => {
    const runs = await inBatches(SCENARIOS, PARALLEL, runScenario);
    const results = Object.fromEntries(runs.map((run) => [run.scenario, passed(run) ? 'pass' : 'fail']));
    expect(results, report(runs)).toEqual(Object.fromEntries(SCENARIOS.map((scenario) => [scenario, 'pass'])));
  });

  it('refuses authorization server metadata whose issuer does not match (RFC 8414 §3.3)', { timeout: 5 * 60_000 }, async () => {
    const runs = await inBatches(ISSUER_MISMATCH, PARALLEL, runScenario);
    expect(runs.map((run) => !passed(run) && run.output.includes('IssuerMismatchError')), report(runs)).toEqual(runs.map(() => true));
  });

  it('passes sse-retry, run alone because it measures timing', { timeout: 5 * 60_000 }, async () => {
    const runs = await inBatches(TIMING_SENSITIVE, 1, runScenario);
    expect(runs.map(passed), report(runs)).toEqual(runs.map(() => true));
  });
});

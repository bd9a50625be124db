/**
 * Number flags refuse what the code behind them cannot use, as usage errors: a `--timeout` past
 * Node's longest timer (which would fire after 1 ms and blame the server's entry), and a count past
 * 2^53 (which search refused in the words it gives a model).
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from './support/in-process-cli.js';

describe('number flags', () => {
  it('--timeout over 2147483647 ms is a usage error, not a connect timeout that fires at once', async () => {
    const run = await runInProcess(['call', '--timeout', '9999999999', 'everything', 'echo', '{}']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: option '--timeout <ms>' argument '9999999999' is invalid. Give a positive whole number of milliseconds, at most 2147483647");
    expect(run.stderr).not.toContain('TimeoutOverflowWarning');
    expect(run.stdout).toBe('');
  });

  it('--timeout 2147483647 is still taken', async () => {
    const run = await runInProcess(['call', '--timeout', '2147483647', 'no-such-server', 'echo', '{}']);
    expect(run.stderr).not.toContain("option '--timeout <ms>'");
    expect(run.stderr).toContain('no-such-server');
  });

  it('search --limit past 2^53 is a usage error, not the model-facing "Invalid arguments for search_mcp_tools"', async () => {
    const run = await runInProcess(['search', '--limit', '99999999999999999999', 'echo']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: option '--limit <n>' argument '99999999999999999999' is invalid. Give a positive whole number");
    expect(run.stderr).not.toContain('search_mcp_tools');
  });
});

import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpConnectOptions } from '../src/index.js';
import { backoffDelay, DEFAULT_BACKOFF } from '../machines/options.js';
import { refusingTransport, rejectionOf, settle, stdioFixture } from './support/fixtures.js';


/** Runs the simulated clock second by second for `seconds`, letting the connect attempts settle between ticks. */
async function runFor(clock: SimulatedClock, seconds: number) {
  for (let second = 0; second < seconds; second++) {
    await settle();
    clock.increment(1_000);
  }
  await settle();
}

/** A manager on a simulated clock whose every connect is refused, noting when each attempt began. */
function refusingManager() {
  const clock = new SimulatedClock();
  const attempts: number[] = [];
  const manager = new McpConnectionManager({
    clock,
    logger: silentLogger,
    transportFactory: () => {
      attempts.push(clock.now());
      return refusingTransport();
    },
  });
  return { clock, attempts, manager };
}

describe('backoff between connect attempts', () => {
  it('retries a transiently failing server at t = 0, 1, 3, 7, 15, 31, 61 s, then stays in error', async () => {
    const { clock, attempts, manager } = refusingManager();
    const connecting = manager.connect('flaky', { url: 'http://127.0.0.1:1/mcp' }, { maxRetries: 6 });
    const outcome = rejectionOf(connecting);

    await runFor(clock, 120);

    expect(attempts).toEqual([0, 1_000, 3_000, 7_000, 15_000, 31_000, 61_000]);
    expect(manager.getState('flaky')).toBe('error');
    const error = await outcome;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/Could not connect to MCP server "flaky".*ECONNREFUSED/);
    await manager.dispose();
  });

  it('does not retry a config error: a command that does not exist fails after one attempt', async () => {
    const clock = new SimulatedClock();
    let attempts = 0;
    const manager = new McpConnectionManager({ clock, logger: silentLogger });
    manager.on('mcp.stateChanged', (event) => {
      if (event.substate === 'connecting.negotiating') attempts++;
    });
    const error = await rejectionOf(manager
      .connect('missing', { command: 'definitely-not-a-command-xyz' }, { maxRetries: 6 }));
    await runFor(clock, 120);

    expect(attempts).toBe(1);
    expect(manager.getState('missing')).toBe('error');
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'missing' });
    expect(error.message).toMatch(/definitely-not-a-command-xyz.*not found/);
    await manager.dispose();
  });

  /** Connect attempts a refusing server gets within `seconds` of simulated time, and how connect() ends. */
  async function attemptsWithin(seconds: number, options?: McpConnectOptions) {
    const clock = new SimulatedClock();
    let attempts = 0;
    const manager = new McpConnectionManager({
      clock,
      logger: silentLogger,
      transportFactory: () => {
        attempts++;
        return refusingTransport();
      },
    });
    const outcome = rejectionOf(manager.connect('flaky', { url: 'http://127.0.0.1:1/mcp' }, options));
    await runFor(clock, seconds);
    const error = await outcome;
    await manager.dispose();
    return { attempts, error };
  }

  it('gives up after the default 3 retries', async () => {
    const { attempts, error } = await attemptsWithin(60);
    expect(attempts).toBe(4);
    expect(error).toMatchObject({ code: 'CONNECT_FAILED' });
  });

  it('does not retry at all with autoReconnect: false', async () => {
    const { attempts, error } = await attemptsWithin(60, { autoReconnect: false });
    expect(attempts).toBe(1);
    expect(error).toMatchObject({ code: 'CONNECT_FAILED' });
  });

  it('computes the delay table 1 s, 2 s, 4 s, 8 s, 16 s, then the 30 s cap', () => {
    const delays = Array.from({ length: 8 }, (_, retries) => backoffDelay(retries, DEFAULT_BACKOFF));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('with jitter, retries exactly when the state change said it would (retryInMs is the delay the chart waits)', async () => {
    const { clock, attempts, manager } = refusingManager();
    const announced: number[] = [];
    manager.on('mcp.stateChanged', (event) => {
      if (event.substate === 'error.retrying' && event.retryInMs !== undefined) announced.push(clock.now() + event.retryInMs);
    });
    const outcome = rejectionOf(manager.connect('flaky', { url: 'http://127.0.0.1:1/mcp' }, { maxRetries: 3, backoff: { jitter: 0.9 } }));
    for (let retry = 0; retry < 3; retry++) {
      await settle();
      const due = announced[retry]!;
      clock.increment(due - 1 - clock.now());
      await settle();
      expect(attempts, `retry ${retry + 1} not before its announced time`).toHaveLength(retry + 1);
      clock.increment(1);
      await settle();
      expect(attempts, `retry ${retry + 1} at its announced time`).toHaveLength(retry + 2);
    }
    expect(attempts.slice(1)).toEqual(announced);
    await outcome;
    await manager.dispose();
  });

  it('spreads delays with jitter, never above the undelayed value', () => {
    const jittered = { ...DEFAULT_BACKOFF, jitter: 0.5 };
    expect(backoffDelay(2, jittered, () => 0)).toBe(4_000);
    expect(backoffDelay(2, jittered, () => 1)).toBe(2_000);
    expect(backoffDelay(10, jittered, () => 0.5)).toBe(22_500);
  });
});

describe('a config error from a real process', () => {
  it('is reported with the stderr tail when the server exits during initialize', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const error = await rejectionOf(manager
      .connect('refuser', stdioFixture('--mode', 'exit-on-initialize'), { autoReconnect: false }));
    expect(error.message).toMatch(/Could not connect to MCP server "refuser"/);
    expect(error.message).toContain('fixture: refusing to initialize');
    expect(manager.getState('refuser')).toBe('error');
    await manager.dispose();
  });
});

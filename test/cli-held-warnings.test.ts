/**
 * The one-shot commands' session logger holds warnings until the command's outcome: printed
 * before a success, dropped after a failure (its own error says what happened). A server that
 * warns without end while a call runs must not make it hold without end.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../src/logger.js';
import { MAX_HELD_WARNINGS, outcomeLogger, SERVE_WARNINGS_PER_MINUTE, servingLogger } from '../src/cli/logger.js';

function recording(): { logger: Logger; warned: string[] } {
  const warned: string[] = [];
  const ignore = () => {};
  return { logger: { debug: ignore, info: ignore, warn: (message) => warned.push(message), error: ignore }, warned };
}

describe('the one-shot session logger', () => {
  it('prints held warnings after a success, in order, and drops them after a failure', () => {
    const success = recording();
    const held = outcomeLogger(false, success.logger);
    held.warn('first');
    held.warn('second');
    expect(success.warned).toEqual([]);
    held.settle(false);
    expect(success.warned).toEqual(['first', 'second']);

    const failure = recording();
    const dropped = outcomeLogger(false, failure.logger);
    dropped.warn('the stream was cut');
    dropped.settle(true);
    dropped.warn('closing words');
    expect(failure.warned).toEqual([]);
  });

  it(`keeps at most ${MAX_HELD_WARNINGS} warnings while a command runs and says how many more came`, () => {
    const { logger, warned } = recording();
    const held = outcomeLogger(false, logger);
    for (let index = 0; index < 100_000; index++) held.warn(`line ${index} is not JSON`);
    held.settle(false);
    expect(warned).toHaveLength(MAX_HELD_WARNINGS + 1);
    expect(warned[0]).toBe('line 0 is not JSON');
    expect(warned.at(-1)).toBe(`${100_000 - MAX_HELD_WARNINGS} more warnings of this session were not kept (run with --verbose to see them all)`);
  });

  it('with --verbose writes every warning at once', () => {
    const { logger, warned } = recording();
    const verbose = outcomeLogger(true, logger);
    verbose.warn('now');
    expect(warned).toEqual(['now']);
  });
});

describe("serve's logger", () => {
  afterEach(() => vi.useRealTimers());

  it(`writes ${SERVE_WARNINGS_PER_MINUTE} warnings a minute, counts the rest and says how many when the minute ends, then writes again`, () => {
    vi.useFakeTimers();
    const { logger, warned } = recording();
    const serving = servingLogger(false, logger);
    for (let n = 1; n <= SERVE_WARNINGS_PER_MINUTE + 250; n++) serving.warn(`warning ${n}`);
    expect(warned).toHaveLength(SERVE_WARNINGS_PER_MINUTE);
    expect(warned.at(-1)).toBe(`warning ${SERVE_WARNINGS_PER_MINUTE}`);
    vi.advanceTimersByTime(60_000);
    expect(warned.at(-1)).toBe('250 more warnings in the last minute were not written (run with --verbose to see them all)');
    serving.warn('a new minute');
    expect(warned.at(-1)).toBe('a new minute');
  });

  it('with --verbose writes every warning', () => {
    const { logger, warned } = recording();
    const serving = servingLogger(true, logger);
    for (let n = 0; n < SERVE_WARNINGS_PER_MINUTE + 5; n++) serving.warn('w');
    expect(warned).toHaveLength(SERVE_WARNINGS_PER_MINUTE + 5);
  });
});

import { afterAll, beforeAll, expect, vi } from 'vitest';

/** Fails the file if any promise rejection went unhandled while it ran; returns the spy for per-test checks. */
export function failOnUnhandledRejections() {
  const unhandledRejection = vi.fn();
  beforeAll(() => {
    process.on('unhandledRejection', unhandledRejection);
  });
  afterAll(() => {
    process.off('unhandledRejection', unhandledRejection);
    expect(unhandledRejection).not.toHaveBeenCalled();
  });
  return unhandledRejection;
}

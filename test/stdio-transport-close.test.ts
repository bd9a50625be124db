/**
 * Closing a stdio server's transport: every close waits until the process has exited, so what it
 * wrote to stderr on its way out is in the tail an error shows. A connect that fails early is
 * closed twice at once (the SDK closes its client, then the session closes it); the second close
 * used to return at once, and the error went out with an empty stderr tail.
 */
import { describe, expect, it } from 'vitest';
import { ProcessGroupStdioTransport } from '../src/transports/stdio.js';
import { StderrTail } from '../src/transports/stderr-tail.js';

/** Ignores stdin closing, writes a last line to stderr a moment later, then exits. */
const LAST_WORDS = "process.stdin.resume(); process.stdin.on('end', () => setTimeout(() => { process.stderr.write('last words\\n'); process.exit(1); }, 200));";

describe('closing a stdio transport', () => {
  it('a second close made while the first runs waits for the same exit, and stderr is read to its end', async () => {
    const transport = new ProcessGroupStdioTransport(process.execPath, ['-e', LAST_WORDS], { PATH: process.env.PATH ?? '' });
    const tail = new StderrTail(transport.stderr, []);
    await transport.start();
    const first = transport.close();
    const second = transport.close();
    await second;
    expect(tail.text()).toBe('last words');
    await first;
  });

});

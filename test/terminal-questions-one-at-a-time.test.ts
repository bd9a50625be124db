/**
 * Questions asked on the terminal while another waits (a server asking two pages at once) are
 * asked one after the other, each answered by its own line.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { askOnTerminal } from '../src/cli/terminal-question.js';

afterEach(() => vi.restoreAllMocks());

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  vi.spyOn(process, 'stdin', 'get').mockReturnValue(input as unknown as typeof process.stdin);
  vi.spyOn(process, 'stderr', 'get').mockReturnValue(output as unknown as typeof process.stderr);
  return { input, shown: () => shown };
}

describe('questions on the terminal', () => {
  it('one typed line answers one question: the second is asked after the first is answered', async () => {
    const { input, shown } = terminal();
    const first = askOnTerminal('Open good.example? ');
    const second = askOnTerminal('Open evil.example? ');
    input.write('y\n');
    expect(await first).toBe('y');
    input.write('n\n');
    expect(await second).toBe('n');
    expect(shown().indexOf('Open evil.example?')).toBeGreaterThan(shown().indexOf('Open good.example?'));
  });

  it('a question given up while it waits its turn is not asked once its turn comes', async () => {
    const { input, shown } = terminal();
    const first = askOnTerminal('first? ');
    const controller = new AbortController();
    const second = askOnTerminal('second? ', controller.signal);
    controller.abort();
    input.write('y\n');
    expect(await first).toBe('y');
    await expect(second).rejects.toThrow();
    expect(shown()).not.toContain('second?');
  });
});

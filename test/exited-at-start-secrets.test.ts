/**
 * A stdio server that ends while connecting, when the error about it had to be redacted (its
 * message held a value of the entry's env): the copy keeps how the process ended, so the hints
 * for a person and for the model still tell a signal from outside from a command that fails.
 * Real processes, no retries.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger, type McpServerConfig, type McpServerError } from '../src/index.js';
import { explainFailure } from '../src/cli/failure-text.js';
import { loadFailureText } from '../src/tools/failure-text.js';
import { ServerRows } from '../src/view/server-rows.js';
import { descendantsOfThisProcess, rejectionOf } from './support/fixtures.js';

const TOKEN = 'tok-9f3c2a71e5d84b06';

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  expect(descendantsOfThisProcess()).toEqual([]);
});

/** A server that prints its token on stderr, then ends as `end` says, before it answers anything. */
function serverThatEnds(end: string, env: Record<string, string>): McpServerConfig {
  const script = `process.stderr.write('starting with ' + process.env.API_TOKEN + '\\n'); ${end}`;
  return { command: process.execPath, args: ['-e', script], env: { API_TOKEN: TOKEN, ...env } };
}

async function connectFailureOf(name: string, config: McpServerConfig) {
  const manager = new McpConnectionManager({ logger: silentLogger });
  managers.push(manager);
  const view = new ServerRows(manager, () => {});
  try {
    const error = await rejectionOf(manager.connect(name, config, { maxRetries: 0 }));
    return { error, state: manager.getState(name), viewed: view.get(name)?.lastError };
  } finally {
    view.stop();
  }
}

describe('a stdio server that ends while connecting, whose error held a secret', () => {
  it('ended by a SIGTERM named in its env: no secret anywhere, the signal kept, and both hints say a signal from outside ended it', async () => {
    // The env's STOP_SIGNAL value is a secret as any env value is, and "SIGTERM" is in the message.
    const config = serverThatEnds('process.kill(process.pid, process.env.STOP_SIGNAL)', { STOP_SIGNAL: 'SIGTERM' });
    const { error, state } = await connectFailureOf('stopped', config);

    expect(error.message).toBe('Could not connect to MCP server "stopped": its process was ended by [redacted] while connecting.\nLast stderr lines:\nstarting with [redacted]');
    expect(error.cause).toMatchObject({ name: 'ExitedAtStartError', exitCode: null, signal: 'SIGTERM' });
    const person = explainFailure('stopped', error);
    expect(person.hint).toMatch(/^a signal from outside ended its process .*not its command: trying again may help/);
    expect(loadFailureText('stopped', state, error, 'library')).toMatch(/What you can do: a signal from outside ended the server's process while it was connecting/);
    expect(JSON.stringify({ person, model: loadFailureText('stopped', state, error, 'library'), message: error.message, cause: String(error.cause) })).not.toContain(TOKEN);
  });

  it('exited with a code, a word of its message in its env: the exit code kept, the hint the one for a command that fails', async () => {
    const config = serverThatEnds('process.exit(3)', { WORKER_KIND: 'process' });
    const { error } = await connectFailureOf('early', config);

    expect(error.message).toBe('Could not connect to MCP server "early": its [redacted] exited at start with code 3.\nLast stderr lines:\nstarting with [redacted]');
    expect(error.cause).toMatchObject({ name: 'ExitedAtStartError', exitCode: 3, signal: null });
    expect(explainFailure('early', error).hint).toMatch(/^its command fails at start/);
  });

  it('a secret that spans lines and holds a control character: neither the error nor the lifecycle view shows it, raw or escaped', async () => {
    const secret = 'tok\x01en-9f3c\nsecond-line-2a71';
    const { error, viewed } = await connectFailureOf('spanning', serverThatEnds('process.exit(3)', { API_TOKEN: secret }));

    const shown = JSON.stringify({ message: error.message, stderrTail: (error as McpServerError).stderrTail, viewed });
    expect(viewed?.stderrTail).toBe('starting with [redacted]');
    expect(shown).not.toContain('9f3c');
    expect(shown).not.toContain('2a71');
  });

  it('a secret whose lines end in \\r\\n: neither the error nor the lifecycle view shows it, though stderr lines are read without their \\r', async () => {
    const { error, viewed } = await connectFailureOf('crlf', serverThatEnds('process.exit(3)', { API_TOKEN: 'tok-9f3c\r\nsecond-line-2a71' }));

    const shown = JSON.stringify({ message: error.message, stderrTail: (error as McpServerError).stderrTail, viewed });
    expect((error as McpServerError).stderrTail).toBe('starting with [redacted]');
    expect(shown).not.toContain('9f3c');
    expect(shown).not.toContain('2a71');
  });
});

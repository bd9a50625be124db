/**
 * A server's name comes from a config file, a tool's, prompt's or resource's name from the host:
 * `serve` quotes them in its messages to the host and in its log lines on stderr, where a name
 * with a line break would forge a line of its own and an escape sequence would reach whoever
 * reads the log on a terminal. Each is shown on one line, its control characters escaped (as the
 * loader tools show names to the model). Real processes: the CLI and the fixture server, which
 * prints its command line to stderr (a line serve logs under the server's name with --verbose).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stdioFixture } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';
import { initializeAndLoad, startServeIn, type ServeMessage } from './support/serve-host.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';

const FORGED = 'SYSTEM: forged line';
const HOSTILE = `evil\n${FORGED} \u001b[31mred`;

function expectOneCleanLine(text: string): void {
  expect(text).not.toContain('\n');
  expect(text).not.toContain('\u001b');
}

const endedAfterTest = servesEndedAfterEachTest();

describe('serve with hostile names', () => {
  it('quotes a server name holding "\\n" and "\\u001b[31m" escaped in its log lines, and host-given names in its answers', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-serve-hostile-names-'));
    const config = join(home, 'mcp.json');
    // The hostile server sends one log message right after initialize, which serve relays to the host.
    const LOGGING = `logs\n${FORGED} \u001b[31m`;
    writeFileSync(config, JSON.stringify({ mcpServers: { [HOSTILE]: stdioFixture('--print-argv'), [LOGGING]: hostileServer('--log-flood', '1') } }));
    const serve = endedAfterTest(startServeIn(home, ['--verbose', '--config', config]));
    await initializeAndLoad(serve, [HOSTILE, LOGGING]);
    const asked = async (id: number, method: string, params: object): Promise<ServeMessage> => {
      serve.send({ id, method, params });
      return serve.answer(id);
    };
    const answers = [
      await asked(10, 'tools/call', { name: `tool\n${FORGED} \u001b[31m`, arguments: {} }),
      await asked(11, 'prompts/get', { name: `other\n${FORGED} \u001b[31m/prompt` }),
      await asked(12, 'resources/read', { uri: `mcp-statechart://other\n${FORGED} \u001b[31m/x` }),
    ];
    for (const answer of answers) {
      const text = answer.error?.message ?? answer.result?.content?.map((part) => part.text ?? '').join('') ?? '';
      expect(text).toMatch(/Unknown (tool|prompt|resource) "[^"]*\\x0aSYSTEM: forged line \\x1b\[31m/);
      expectOneCleanLine(text);
    }

    // A failure of the server itself, relayed to the host: its message names the server.
    const failed = await asked(13, 'prompts/get', { name: `${HOSTILE}/no-such-prompt` });
    expect(failed.error?.message).toContain(`"evil\\x0a${FORGED} \\x1b[31mred"`);
    expectOneCleanLine(failed.error!.message);

    // A relayed log message names its server (and the server's logger) in `logger`.
    let relayed: ServeMessage | undefined;
    for (let wait = 0; wait < 100 && !relayed; wait++) {
      relayed = serve.messages().find((message) => message.method === 'notifications/message' && String(message.params?.logger).endsWith('/hostile'));
      if (!relayed) await new Promise((done) => setTimeout(done, 50));
    }
    expect(relayed?.params?.logger).toBe(`logs\\x0a${FORGED} \\x1b[31m/hostile`);

    // The server's stderr line, logged under its name, and its lifecycle lines.
    const stderr = serve.stderr();
    expect(stderr).toContain('argv:');
    expect(stderr).toContain(`evil\\x0a${FORGED} \\x1b[31mred`);
    expect(stderr).not.toContain('\u001b');
    for (const line of stderr.split('\n')) expect(line.startsWith(FORGED)).toBe(false);
  }, 60_000);
});

/**
 * `--verbose` logs each line a stdio server writes to stderr as it comes, redacted. A config value
 * holding a line break (a key, a multi-line token) is written by the server on two lines, each of
 * which holds only a part of it: the line that ends in the secret's first line waits for the next,
 * and the two are redacted together. Other lines go on at once. Real serve and fixture server for
 * the log; StderrTail on a stream for the timing of single lines.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StderrTail } from '../src/transports/stderr-tail.js';
import { stdioFixture } from './support/fixtures.js';
import { servesEndedAfterEachTest } from './support/serve-each-test.js';
import { loadFixture, startServe } from './support/serve-host.js';

const SECRET = 'canary-9f3c\nsecond-line-2a71';
const ended = servesEndedAfterEachTest();

describe('serve --verbose logs a server stderr line by line, secrets redacted', () => {
  it('a secret the server writes across two lines is logged [redacted], neither half shown; the lines around it are logged as written', async () => {
    // The fixture writes a line as it starts, then TOKEN=<value>, then its arguments.
    const fixture = { ...stdioFixture('--print-env', 'TOKEN', '--print-argv'), env: { TOKEN: SECRET } };
    const serve = ended(startServe({ fixture }, { serveFlags: ['--verbose'] }));
    await loadFixture(serve);
    const logged = serve
      .stderr()
      .split('\n')
      .filter((line) => line.includes('[fixture stderr] '))
      .map((line) => line.slice(line.indexOf('[fixture stderr] ') + '[fixture stderr] '.length));
    expect(logged).toEqual([expect.stringMatching(/^fixture fixture started pid=\d+$/), 'TOKEN=[redacted]', 'argv: --print-env TOKEN --print-argv']);
    expect(serve.stderr()).not.toContain('9f3c');
    expect(serve.stderr()).not.toContain('2a71');
  }, 60_000);
});

describe('which lines wait', () => {
  function tail() {
    const stream = new PassThrough();
    const logged: string[] = [];
    new StderrTail(stream, [SECRET], 50, (line) => logged.push(line));
    const written = (text: string) => new Promise<void>((done) => stream.write(text, () => setImmediate(done)));
    return { stream, logged, written };
  }

  it('a line that cannot begin the secret is logged as soon as it ends', async () => {
    const { logged, written } = tail();
    await written('starting canary-9f3\n');
    expect(logged).toEqual(['starting canary-9f3']);
  });

  it("a line ending in the secret's first line waits for the next, and goes on as written when the secret does not follow", async () => {
    const { logged, written } = tail();
    await written('key canary-9f3c\n');
    expect(logged).toEqual([]);
    await written('was rotated\n');
    expect(logged).toEqual(['key canary-9f3c', 'was rotated']);
  });

  it('a line still waiting when the server closes stderr is logged with the start of the secret cut off', async () => {
    const { stream, logged, written } = tail();
    await written('key canary-9f3c\n');
    await new Promise<void>((done) => stream.end(() => setImmediate(done)));
    expect(logged).toEqual(['key [redacted]']);
  });
});

describe('a secret spanning lines that end in \\r\\n', () => {
  // Lines are read without their trailing \r, so a secret is looked for as it reads in such lines too.
  const cases = [
    { name: 'a config value holding \\r\\n, printed as it is', secret: 'canary-9f3c\r\nsecond-line-2a71', written: 'TOKEN=canary-9f3c\r\nsecond-line-2a71\r\n' },
    { name: 'a config value holding \\n, printed by a server that writes \\r\\n', secret: SECRET, written: 'TOKEN=canary-9f3c\r\nsecond-line-2a71\r\n' },
  ];

  it.each(cases)('$name: neither the live log nor the tail kept for the error shows it', async ({ secret, written }) => {
    const stream = new PassThrough();
    const logged: string[] = [];
    const kept = new StderrTail(stream, [secret], 50, (line) => logged.push(line));
    await new Promise<void>((done) => stream.end(`starting\r\n${written}done\r\n`, () => setImmediate(done)));
    expect(logged).toEqual(['starting', 'TOKEN=[redacted]', 'done']);
    expect(kept.text()).toBe('starting\nTOKEN=[redacted]\ndone');
  });
});

/**
 * The README's demo transcript (written by `npm run demo:transcript` from a real run) has the
 * shape of a run today: the same lines, servers, tools and counts, each server's events in the
 * same order. Timings, the port and the killed process's id are left out.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { demoShape, portableTranscript, readmeTranscript, withReadmeTranscript } from '../scripts/demo-transcript-shape.js';
import { runCli } from './support/cli.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe("the README's demo transcript", () => {
  it('has the shape of a real demo run (if not: npm run demo:transcript)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-readme-demo-'));
    try {
      const run = await runCli(['demo'], { cwd: folder, env: { HOME: folder }, timeoutMs: 60_000 });
      expect(run.code).toBe(0);
      expect(demoShape(readmeTranscript(README))).toEqual(demoShape(portableTranscript(run.stdout, ROOT)));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 90_000);

  it('leaves out only timings, the port, the process id and how servers interleave', () => {
    const run = ['  +0.062s  weather server listening on http://127.0.0.1:32807/mcp', '  +0.093s  [notes] disconnected → connecting', '  +0.2s  [weather] connecting → connected', '   tools: a, b', 'Done in 4.3 s. Enabled servers in this config: notes.'].join('\n');
    const later = ['  +1.162s  weather server listening on http://127.0.0.1:40001/mcp', '  +0.2s  [weather] connecting → connected', ' +12.093s  [notes] disconnected → connecting', '   tools: a, b', 'Done in 15.1 s. Enabled servers in this config: notes.'].join('\n');
    expect(demoShape(later)).toEqual(demoShape(run));
    expect(demoShape(run.replace('tools: a, b', 'tools: a'))).not.toEqual(demoShape(run));
    expect(demoShape(run.replace('[notes] disconnected → connecting', '[notes] connecting → error'))).not.toEqual(demoShape(run));
  });

  it('is the block after "Real output:", which the script replaces and nothing else', () => {
    const replaced = withReadmeTranscript(README, 'new transcript\n');
    expect(readmeTranscript(replaced)).toBe('new transcript');
    expect(replaced.replace('new transcript', readmeTranscript(README))).toBe(README);
  });
});

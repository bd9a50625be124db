/**
 * `npm run demo:transcript`: runs `mcp-statechart demo` for real (a temporary home and working
 * folder) and writes its output into README.md's demo block. test/readme-demo-transcript.test.ts
 * checks that the block still has the shape of a run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { portableTranscript, withReadmeTranscript } from './demo-transcript-shape.js';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const readmePath = join(root, 'README.md');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const folder = mkdtempSync(join(tmpdir(), 'mcp-demo-transcript-'));
try {
  const run = spawnSync(process.execPath, ['--import', tsx, join(root, 'src', 'cli', 'main.ts'), 'demo'], {
    cwd: folder,
    env: { ...process.env, HOME: folder },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0 || run.stderr !== '') {
    process.stderr.write(`The demo did not run cleanly (exit ${run.status ?? run.signal}); README.md is unchanged.\n${run.stderr}`);
    process.exit(1);
  }
  const transcript = portableTranscript(run.stdout, root);
  writeFileSync(readmePath, withReadmeTranscript(readFileSync(readmePath, 'utf8'), transcript));
  process.stdout.write(`README.md: the demo transcript is now this run's ${transcript.split('\n').length} lines.\n`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}

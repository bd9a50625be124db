/**
 * Vitest's global setup: the test run never sees the real home. Before any worker starts (so
 * before any test module loads), HOME points at a temporary folder for the whole run, which every
 * worker and every process a test starts inherits; each test then gets a home of its own
 * (test/support/temporary-home.ts). At the end the real home's `~/.ai-zen` and
 * `~/.local/state/mcp-statechart` (the approvals' key) must be exactly as they were, and nothing
 * may have landed in the run's folder: otherwise the run fails (exit code 1) and says which
 * files changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { changedFiles, projectFilesUnder } from './home-files.js';

export default function guardRealHome(): () => void {
  const realHome = os.homedir();
  const before = projectFilesUnder(realHome);
  const runHome = mkdtempSync(path.join(os.tmpdir(), 'mcp-test-run-home-'));
  process.env.HOME = runHome;
  return () => {
    process.env.HOME = realHome;
    const realChanges = changedFiles(before, projectFilesUnder(realHome));
    const runWrites = [...projectFilesUnder(runHome).keys()];
    rmSync(runHome, { recursive: true, force: true });
    const complaints = [
      ...(realChanges.length ? [`the real home (${realHome}) changed during the test run: ${realChanges.join(', ')}`] : []),
      ...(runWrites.length ? [`written under the run's HOME, outside any test's own home: ${runWrites.join(', ')}`] : []),
    ];
    if (complaints.length === 0) return;
    process.exitCode = 1;
    console.error(`\nFAIL the test run touched a home folder it must not:\n  ${complaints.join('\n  ')}\n`);
  };
}

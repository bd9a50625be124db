import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManifestIndex } from '../../src/index.js';

/**
 * A manifest index in a temporary folder, removed when the process exits: the loader tools
 * record every connected server's manifest, and a benchmark must not write the user's own
 * index (~/.ai-zen/mcp-index.json).
 */
export function temporaryManifestIndex(): ManifestIndex {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-index-'));
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  return new ManifestIndex({ path: path.join(folder, 'mcp-index.json') });
}

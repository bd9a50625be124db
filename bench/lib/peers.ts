/**
 * The peer libraries live in bench/peers/ with their own package.json and lock, installed on first
 * use; the root project never depends on them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PEERS_DIR, REPO_ROOT } from './paths.js';

const MARKER = path.join(PEERS_DIR, 'node_modules', '@langchain', 'mcp-adapters', 'package.json');

export function peersInstalled(): boolean {
  return existsSync(MARKER);
}

/** `npm ci --prefix bench/peers` (or `npm install` when there is no lock) when bench/peers/node_modules is missing. */
export function ensurePeers(): void {
  if (peersInstalled()) return;
  const locked = existsSync(path.join(PEERS_DIR, 'package-lock.json'));
  const args = [locked ? 'ci' : 'install', '--prefix', path.relative(REPO_ROOT, PEERS_DIR), '--no-audit', '--no-fund'];
  process.stderr.write(`  bench/peers/node_modules is missing: npm ${args.join(' ')}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // npm's output goes to stderr: stdout carries the parts' results.
  const outcome = spawnSync(npm, args, { cwd: REPO_ROOT, stdio: ['ignore', 2, 2] });
  if (outcome.status !== 0 || !peersInstalled()) {
    throw new Error(`installing the bench peers failed (npm ${args.join(' ')} exited with ${outcome.status ?? outcome.signal})`);
  }
}

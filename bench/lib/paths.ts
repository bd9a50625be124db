/** Where things are, found from this file so that it works from bench/ and from the bundles in bench/.cache/. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../machines/types.js';

function findRepoRoot(start: string): string {
  let folder = start;
  for (;;) {
    const manifest = path.join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'mcp-statechart') {
      return folder;
    }
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error(`bench: no mcp-statechart package.json above ${start}`);
    folder = parent;
  }
}

export const REPO_ROOT = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
export const BENCH_DIR = path.join(REPO_ROOT, 'bench');
export const PEERS_DIR = path.join(BENCH_DIR, 'peers');
/** Bundles, profiles and the last run's JSON; git-ignored by bench/.gitignore. */
export const CACHE_DIR = path.join(BENCH_DIR, '.cache');
export const STDIO_FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'stdio-server.mjs');
/** The server that speaks only MCP 2026-07-28 (v2 SDK, legacy requests refused). */
export const MODERN_FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'modern-server.mjs');
export const NOTES_SERVER = path.join(REPO_ROOT, 'examples', 'servers', 'notes-server.mjs');

/** A binary of the root project's node_modules/.bin. */
export function projectBin(name: string): string {
  return path.join(REPO_ROOT, 'node_modules', '.bin', name);
}

/** A stdio entry that runs the fixture server with these flags (as test/support/fixtures.ts does). */
export function stdioFixture(...flags: string[]): McpServerConfig {
  return { command: process.execPath, args: [STDIO_FIXTURE, ...flags] };
}

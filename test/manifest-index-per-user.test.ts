/**
 * A program serving many users gives each user a manifest index of their own (README "Many users
 * in one process"). Indexes of one file share their entries while any of them is in use; once
 * none is, the process keeps nothing of that file, so users who have left cost no memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManifestIndex, silentLogger, type McpServerConfig } from '../src/index.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'mcp-index-per-user-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const notes: McpServerConfig = { command: 'node', args: ['notes-server.mjs'] };
const manifest = { tools: [{ name: 'search_notes', description: 'Searches the notes', inputSchema: { type: 'object' as const } }], resources: [], resourceTemplates: [], prompts: [] };

/** Records and writes one user's entry, and hands back only a way to tell whether that entry is still held. */
async function userWhoLeft(user: string): Promise<() => boolean> {
  const index = new ManifestIndex({ path: path.join(folder, user, 'index.json'), logger: silentLogger });
  const recorded = index.record('notes', notes, manifest);
  expect(recorded.stored).toBe(true);
  await index.flush();
  const entry = new WeakRef(index.entry('notes')!);
  return () => entry.deref() !== undefined;
}

it("lets go of an index's entries once no index of its file is in use: a user who left costs no memory", async () => {
  const held = await Promise.all(['alice', 'bob', 'carol'].map(userWhoLeft));
  const nextTurn = () => new Promise((next) => setTimeout(next, 10));
  for (let round = 0; round < 50; round++) {
    // Collected in a turn of its own: a WeakRef read keeps its target alive until its turn ends.
    await nextTurn();
    collectGarbage();
    await nextTurn();
    if (!held.some((isHeld) => isHeld())) break;
  }
  expect(held.map((isHeld) => isHeld())).toEqual([false, false, false]);
  // What was written is still there for the user's next visit.
  const again = new ManifestIndex({ path: path.join(folder, 'alice', 'index.json'), logger: silentLogger });
  expect(again.lookup('notes', notes).status).toBe('fresh');
});

it('shares the entries of one file between its indexes while they are in use', () => {
  const file = path.join(folder, 'dave', 'index.json');
  const first = new ManifestIndex({ path: file, logger: silentLogger });
  const second = new ManifestIndex({ path: file, logger: silentLogger });
  first.record('notes', notes, manifest);
  expect(second.lookup('notes', notes).status).toBe('fresh');
});

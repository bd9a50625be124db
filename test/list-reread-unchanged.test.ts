/**
 * A list read again keeps each entry the server sent again unchanged as the same object it kept
 * last time, unchecked: a server whose list changes at every call (one entry of hundreds) costs a
 * comparison per entry, and the diff and the search index see which entries did not change. A
 * changed entry is measured and checked as any, and the kept ones still count toward the caps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerManifest } from '../machines/types.js';
import { Deadline } from '../src/connection/deadline.js';
import { listAllPages, LISTING_LIMITS, type ListKind, type ListingLimits } from '../src/connection/manifest.js';
import { silentLogger } from '../src/logger.js';

const deadlines: Deadline[] = [];
afterEach(() => deadlines.splice(0).forEach((deadline) => deadline.dispose()));

/** One reading of a one-page list, as a refresh makes it after `before`; each item a fresh copy, as parsed from the wire. */
function read<K extends ListKind>(kind: K, items: unknown[], before?: readonly object[], limits: ListingLimits = LISTING_LIMITS): Promise<McpServerManifest[K]> {
  const deadline = new Deadline(60_000, () => new Error('late'));
  deadlines.push(deadline);
  return listAllPages(async () => ({ items: structuredClone(items) }), { server: 'grow', kind, limits, logger: silentLogger, deadline, before });
}

const tool = (name: string, description = name) => ({ name, description, inputSchema: { type: 'object', properties: { text: { type: 'string' } } } });

describe('a tools list read again', () => {
  it('keeps each tool sent again as it was as the same object, and a changed one as a new one', async () => {
    const first = await read('tools', [tool('steady'), tool('counter', 'version 1'), tool('other')]);
    const second = await read('tools', [tool('steady'), tool('counter', 'version 2'), tool('other'), tool('fresh')], first);
    expect(second.map((entry) => entry.description)).toEqual(['steady', 'version 2', 'other', 'fresh']);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[2]).toBe(first[2]);
    // A tool kept once (unchanged, or changed and checked) is kept again the next time.
    const third = await read('tools', [tool('steady'), tool('counter', 'version 2'), tool('other'), tool('fresh')], second);
    expect(third.every((entry, index) => entry === second[index])).toBe(true);
  });

  it('checks a changed tool against the MCP schema, as at the first reading', async () => {
    const first = await read('tools', [tool('fine'), tool('turns')]);
    await expect(read('tools', [tool('fine'), { ...tool('turns'), inputSchema: 7 }], first)).rejects.toThrow(
      /MCP server "grow" listed a tool that does not follow the MCP schema \(inputSchema/,
    );
  });

  it('counts the prompts kept again toward the size cap', async () => {
    const prompts = [{ name: 'x'.repeat(2_000) }, { name: 'y'.repeat(2_000) }];
    const first = await read('prompts', prompts);
    await expect(read('prompts', prompts, first, { ...LISTING_LIMITS, maxChars: 3_000 })).rejects.toThrow(/the server sent more than 0 MB of prompts/);
    await expect(read('prompts', prompts, first, { ...LISTING_LIMITS, maxItems: 1 })).rejects.toThrow(/the server listed more than 1 prompts/);
  });
});

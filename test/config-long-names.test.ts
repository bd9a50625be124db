/**
 * A server name in a config file is a key anyone can make a megabyte long. One the loader tools
 * would refuse (over 1,024 characters) is skipped with a problem saying so, since the model could
 * never load it; one that is kept but long is quoted in messages by its first 120 characters and
 * its length, so it cannot bury the message (or the hint after it) that names it.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverMcpServers, formatProblem } from '../src/config/index.js';
import { quoted } from '../machines/control-characters.js';

let root: string;
let file: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-config-long-names-'));
  file = path.join(root, 'mcp.json');
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const discover = () => discoverMcpServers({ configPaths: [file], env: {} });
const writeServers = (servers: Record<string, unknown>) => fs.writeFile(file, JSON.stringify({ mcpServers: servers }));

describe('a server name longer than the loader tools take', () => {
  it('is skipped with a short problem that says how long it is and what to do', async () => {
    const name = 'n'.repeat(5_000);
    await writeServers({ [name]: { command: 'node' }, kept: { command: 'node' } });
    const { servers, problems } = await discover();
    expect(Object.keys(servers)).toEqual(['kept']);
    expect(problems).toHaveLength(1);
    const text = formatProblem(problems[0]!);
    expect(text).toMatch(/the name is 5,000 characters long; the loader tools take at most 1,024, so the model could never load it: shorten it/);
    expect(text.length).toBeLessThan(400);
  });

  it('keeps a name of exactly 1,024 characters', async () => {
    const name = 'n'.repeat(1_024);
    await writeServers({ [name]: { command: 'node' } });
    const { servers, problems } = await discover();
    expect(Object.keys(servers)).toEqual([name]);
    expect(problems).toEqual([]);
  });
});

describe('a long name in a message', () => {
  it('is quoted by its first 120 characters and its length', async () => {
    const name = `${'a'.repeat(110)}\n${'b'.repeat(189)}`;
    await writeServers({ [name]: { command: 'node', url: 'http://127.0.0.1:1/mcp' } });
    const { problems } = await discover();
    const text = formatProblem(problems[0]!);
    expect(text).toContain(`"${'a'.repeat(110)}\\x0a${'b'.repeat(9)}…" (300 characters)`);
    expect(text).not.toContain('b'.repeat(10));
  });

  it('never cuts a character in half', () => {
    const name = `${'a'.repeat(119)}😀${'a'.repeat(10)}`;
    expect(quoted(name)).toBe(`"${'a'.repeat(119)}…" (131 characters)`);
  });

  it('cuts between whole emoji and accented letters, never after a dangling joiner', () => {
    const family = '👨‍👩‍👧‍👦'; // 11 UTF-16 units; the cut at 120 falls inside the eleventh
    expect(quoted(family.repeat(20))).toBe(`"${family.repeat(10)}…" (220 characters)`);
    const accented = `${'a'.repeat(119)}e\u0301${'a'.repeat(10)}`;
    expect(quoted(accented)).toBe(`"${'a'.repeat(119)}…" (131 characters)`);
  });

  it('quotes a short name whole', () => {
    expect(quoted('memory')).toBe('"memory"');
  });
});

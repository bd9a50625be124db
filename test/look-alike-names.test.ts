/**
 * Names that print the same are told apart. `café` written with é (NFC) and with e + a combining
 * accent (NFD), `fs` and `fѕ` (Cyrillic ѕ), `read_file` and `rеad_file` (Cyrillic е): a name that
 * is not NFC or mixes Latin, Cyrillic and Greek letters is followed by a note saying so wherever it
 * is shown, and a name in one of those scripts alone is noted where it sits beside its look-alike.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoted } from '../machines/control-characters.js';
import { lookAlikeNotes } from '../machines/look-alike-names.js';
import { manifestListing } from '../src/cli/manifest-listing.js';
import { listNames } from '../src/tools/list-names.js';
import { runCli } from './support/cli.js';

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';
const CYRILLIC_S = 'f\u0455';
const CYRILLIC_APE = '\u0430\u0440\u0435';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-look-alike-'));
  const names = [NFC, NFD, 'fs', CYRILLIC_S, CYRILLIC_APE, 'ape', '天気'];
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: Object.fromEntries(names.map((name) => [name, { command: 'never-started' }])) }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(['--config', join(home, 'mcp.json'), ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('servers', () => {
  it('notes the NFD café, the Cyrillic ѕ in fѕ and the all-Cyrillic аре beside ape; plain names stay as they are', async () => {
    const run = await cli('servers');
    const rows = run.stdout.split('\n').slice(1, 8);
    expect(rows[0]).toMatch(new RegExp(`^${NFC} +explicit`));
    expect(rows[1]).toMatch(new RegExp(`^${NFD} \\(not NFC\\) +explicit`));
    expect(rows[2]).toMatch(/^fs +explicit/);
    expect(rows[3]).toMatch(new RegExp(`^${CYRILLIC_S} \\(mixed scripts: Cyrillic \u0455 U\\+0455\\) +explicit`));
    expect(rows[4]).toMatch(new RegExp(`^${CYRILLIC_APE} \\(Cyrillic\\) +explicit`));
    expect(rows[5]).toMatch(/^ape +explicit/);
    expect(rows[6]).toMatch(/^天気 +explicit/);
  }, 40_000);
});

describe('did you mean', () => {
  it('offers both cafés for "cafe", the one written with a combining accent marked', async () => {
    const run = await cli('load', 'cafe');
    expect(run.stderr).toContain(`there is no server named "cafe" (did you mean "${NFC}" or "${NFD}" (not NFC)?)`);
  }, 40_000);

  it('says which of a name typed and the one suggested is in another script', () => {
    expect(lookAlikeNotes([CYRILLIC_APE, 'ape'])).toEqual([' (Cyrillic)', '']);
    expect(listNames(['read_file', 'r\u0435ad_file'], 50, { beside: ['read_fi1e'] })).toBe('read_file, r\u0435ad_file (mixed scripts: Cyrillic \u0435 U+0435)');
    expect(listNames(['ape'], 50, { beside: [CYRILLIC_APE] })).toBe('ape');
    expect(listNames([CYRILLIC_APE], 50, { beside: ['ape'] })).toBe(`${CYRILLIC_APE} (Cyrillic)`);
  });
});

describe('a name quoted in a message', () => {
  it('says it is not NFC or mixes scripts; a Greek, Russian or Japanese name alone is not remarked on', () => {
    expect(quoted(NFD)).toBe(`"${NFD}" (not NFC)`);
    expect(quoted('p\u03bfrt')).toBe('"p\u03bfrt" (mixed scripts: Greek \u03bf U+03BF)');
    expect(quoted('\u03ba\u03b1\u03b9\u03c1\u03cc\u03c2')).toBe('"\u03ba\u03b1\u03b9\u03c1\u03cc\u03c2"');
    expect(quoted('погода')).toBe('"погода"');
    expect(quoted('天気_search')).toBe('"天気_search"');
  });
});

describe('load', () => {
  it("lists a server's read_file and its Cyrillic impostor apart", () => {
    const text = manifestListing({
      server: 'fs',
      state: 'connected',
      tools: [
        { name: 'read_file', description: 'Reads' },
        { name: 'r\u0435ad_file', description: 'Reads too' },
      ],
      resources: [],
      resourceTemplates: [],
      prompts: [],
    });
    expect(text).toContain('\n  read_file  ');
    expect(text).toContain('\n  r\u0435ad_file (mixed scripts: Cyrillic \u0435 U+0435)  Reads too');
  });
});

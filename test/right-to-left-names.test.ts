/**
 * Arabic and Hebrew names in a list keep the list's order on a bidi terminal. Between two
 * right-to-left names, a comma takes their direction and the terminal may show `عربي, الطقس` as
 * one right-to-left run, the names swapped. Each such name shown to a person is set apart with
 * FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE (U+2068, U+2069); ASCII output is unchanged, an
 * isolate a name carries itself is still shown escaped, and the loader tools' text for the model
 * gets none (the model reads the characters in order, and would copy the marks into a name), nor
 * does `--json` (a program compares the names with those it configured).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listNames } from '../src/tools/list-names.js';
import { runCli } from './support/cli.js';

const FSI = '\u2068';
const PDI = '\u2069';
const ISOLATE = /[\u2066-\u2069]/;

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-right-to-left-'));
  const names = ['عربي', 'עברית', 'عربية', 'عربيات', 'fs', `${FSI}x${PDI}`, `${FSI}ב${PDI}`];
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: Object.fromEntries(names.map((name) => [name, { command: 'never-started' }])) }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(['--config', join(home, 'mcp.json'), ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

describe('a list of names shown to a person', () => {
  it('"did you mean" sets each Arabic name apart inside its quotes', async () => {
    const run = await cli('load', 'عرب');
    expect(run.stderr).toContain(`(did you mean "${FSI}عربي${PDI}", "${FSI}عربية${PDI}" or "${FSI}عربيات${PDI}"?)`);
  }, 40_000);

  it('the configured names set apart when Arabic; an ASCII name and an isolate a name carries itself are not', async () => {
    const run = await cli('load', 'zzzzzzzz');
    expect(run.stderr).toContain(
      `(configured: ${FSI}عربي${PDI}, ${FSI}עברית${PDI}, ${FSI}عربية${PDI}, ${FSI}عربيات${PDI}, fs, \\u{2068}x\\u{2069}, ${FSI}\\u{2068}ב\\u{2069}${PDI})`,
    );
  }, 40_000);

  it('ASCII names get no isolate', async () => {
    const run = await cli('load', 'fz');
    expect(run.stderr).toContain('(did you mean "fs"?)');
    expect(run.stderr).not.toMatch(ISOLATE);
  }, 40_000);
});

describe('the same failures for a program (--json)', () => {
  it('name the Arabic names as configured, with no isolate around them', async () => {
    const suggested = JSON.parse((await cli('load', 'عرب', '--json')).stdout) as { error: { message: string } };
    expect(suggested.error.message).toContain('(did you mean "عربي", "عربية" or "عربيات"?)');
    const listed = JSON.parse((await cli('call', 'zzzzzzzz', 'tool', '--json')).stdout) as { error: { message: string } };
    expect(listed.error.message).toContain('(configured: عربي, עברית, عربية, عربيات, fs, \\u{2068}x\\u{2069}, \\u{2068}ב\\u{2069})');
  }, 40_000);
});

describe("the loader tools' text for the model", () => {
  it('lists Arabic names as they are, with no isolate', () => {
    expect(listNames(['عربي', 'الطقس', 'fs'])).toBe('عربي, الطقس, fs');
  });
});

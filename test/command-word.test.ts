/** The words of a command we suggest (`mcp-statechart approve <name>`), read back by a real shell: the name itself, one argument, nothing run. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandWord } from '../machines/control-characters.js';

/** What bash reads `word` as, with LC_ALL=C so that no locale decodes anything for it. */
function asBashReadsIt(word: string): string {
  return execFileSync('bash', ['-c', `printf %s ${word}`], { encoding: 'utf8', timeout: 10_000, env: { PATH: process.env.PATH, LC_ALL: 'C' } });
}

describe('commandWord', () => {
  it.each([
    ['plain', 'fs.local'],
    ['with shell syntax', "x$(touch pwned); rm 'a' `b` \\c"],
    ['with a line break', 'evil\nRevoked 9 approvals: "all"'],
    ['with an escape sequence, a quote and a backslash', "a\u001b[2K'b\\x0a"],
    ['with C1, a tab, bidi and invisible marks', 'n\u0085a\tm\u202ee\u200b\u2066x\u2069'],
    ['with right-to-left letters and an emoji', 'الطقس 👨‍👩‍👧'],
  ])('a name %s is read by bash as the name itself', (_, name) => {
    expect(asBashReadsIt(commandWord(name))).toBe(name);
  }, 30_000);

  it('shows a control character escaped, on one line, with nothing raw', () => {
    const word = commandWord('evil\nRevoked\u001b[2K');
    expect(word).toBe("$'evil\\x0aRevoked\\x1b[2K'");
  });
});

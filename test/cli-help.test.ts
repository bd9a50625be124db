/**
 * Every command's `--help` ends with an example of it, and says nothing about empty defaults; it
 * says which options are required, and what each `--timeout` bounds and is when not given.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/program.js';

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

describe('--help', () => {
  const commands = everyCommand(buildProgram()).filter((command) => command.parent !== null);

  it('covers the commands a person uses every day', () => {
    expect(commands.map(pathOf)).toEqual(
      expect.arrayContaining(['mcp-statechart load', 'mcp-statechart call', 'mcp-statechart install', 'mcp-statechart search', 'mcp-statechart approvals revoke']),
    );
  });

  it.each(commands.map((command) => [pathOf(command), command] as const))('%s: an example of the command, no "(default: [])" or "(default: false)"', (path, command) => {
    const help = helpOf(command);
    const example = new RegExp(`\\nExamples?:\\n(  .*\\n)*  ${path.replace(/ /g, ' ')}( |\\n)`);
    expect(help).toMatch(example);
    expect(help).not.toContain('(default: [])');
    expect(help).not.toContain('(default: false)');
  });

  const optionsOf = (command: Command) => command.options.map((option) => [pathOf(command), option.flags, option] as const);
  const allOptions = commands.flatMap(optionsOf);

  it.each(allOptions.filter(([, flags]) => flags.startsWith('--timeout')))('%s %s: says what it gives time to, and its default', (_path, _flags, option) => {
    expect(option.description).toMatch(/^(with --check: )?give .+ this long to \w+/);
    if (option.defaultValue === undefined) expect(option.description).toMatch(/\(default: [^)]+\)/);
  });

  it.each(allOptions.filter(([, , option]) => option.mandatory))('%s %s: says it is required', (_path, _flags, option) => {
    expect(option.description).toMatch(/^required\b/);
  });
});


describe('call --help', () => {
  const call = buildProgram().commands.find((command) => command.name() === 'call')!;

  it('says that at a terminal a call asks before a tool not marked read-only, and that --approve never skips the question', () => {
    const help = helpOf(call).replace(/\s+/g, ' ');
    expect(help).toMatch(/At a terminal, a call of a tool its server does not mark read-only asks first/);
    expect(help).toContain('--approve never calls without asking');
    expect(help).toMatch(/Without a terminal .* nothing is asked/);
  });
});

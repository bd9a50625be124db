/**
 * Every command's `--help` ends with an example of it, and says nothing about empty defaults; it
 * says which options are required, and what each `--timeout` bounds and is when not given; the
 * failure JSON its `--json` describes is the one it prints.
 */
import type { Command } from 'commander';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/program.js';
import { runCli } from './support/cli.js';

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

describe('--json in --help', () => {
  const commands = everyCommand(buildProgram()).filter((command) => command.parent !== null);
  /** Commands whose failure names the server, each run once on a server nobody configured. */
  const runs: Record<string, string[]> = {
    load: ['load', 'ghost'],
    call: ['call', 'ghost', 'echo'],
    read: ['read', 'ghost', 'file:///x'],
    prompts: ['prompts', 'ghost'],
    prompt: ['prompt', 'ghost', 'p'],
  };

  it.each(Object.entries(runs))('%s: describes the failure object with the keys --json prints', async (name, args) => {
    const command = commands.find((each) => each.name() === name && each.parent?.parent === null)!;
    const described = command.options.find((option) => option.long === '--json')!.description;
    const home = mkdtempSync(join(tmpdir(), 'mcp-help-json-'));
    try {
      writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: {} }));
      const run = await runCli(['--config', join(home, 'mcp.json'), ...args, '--json'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
      const printed = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(printed.ok).toBe(false);
      expect(described).toContain(`{ok: false, ${Object.keys(printed).filter((key) => key !== 'ok').join(', ')}}`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 40_000);
});

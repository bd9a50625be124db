#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode;
    }
    const { errorText, writeError } = await import('./terminal-text.js');
    writeError(`Error: ${errorText(error)}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

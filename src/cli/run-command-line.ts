/**
 * Runs one command line and returns its exit code. A failure no command reported itself (a
 * wrong flag, arguments that do not parse, anything thrown) is worded on stderr or, with
 * `--json`, printed as one `{ ok: false, code, error }` object on stdout (commander's own usage
 * errors go to stderr as well).
 */
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';

export async function runCommandLine(argv: string[]): Promise<number> {
  const program = buildProgram();
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    const [{ CliError }, { errorText, terminalJson, writeError }] = await Promise.all([import('./json-codes.js'), import('./terminal-text.js')]);
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0; commander has written its message to stderr.
      if (json && error.exitCode !== 0) {
        process.stdout.write(`${terminalJson({ ok: false, code: 'INVALID_ARGUMENTS', error: error.message.replace(/^error: /, '') })}\n`);
      }
      return error.exitCode;
    }
    const message = errorText(error);
    const code = error instanceof CliError ? error.code : 'FAILED';
    if (json) process.stdout.write(`${terminalJson({ ok: false, code, error: message })}\n`);
    else writeError(`Error: ${message}`);
    return 1;
  }
}

/**
 * Runs one command line and returns its exit code. A failure no command reported itself (a
 * wrong flag, arguments that do not parse, anything thrown) is worded on stderr or, with
 * `--json`, printed as one `{ ok: false, code, error }` object on stdout (commander's own usage
 * errors go to stderr as well).
 */
import { CommanderError } from 'commander';
import { withoutPersonIsolates } from '../../machines/control-characters.js';
// The words for a failure are loaded with the program, not once it failed: when a command's module
// could not be read (EMFILE under a low `ulimit -n`), Node keeps that failure, and importing them
// then failed with it, so the CLI died with a stack trace naming another file.
import { CliError } from './json-codes.js';
import { buildProgram } from './program.js';
import { errorText, terminalJson, writeError } from './terminal-text.js';

const OUT_OF_FILE_DESCRIPTORS = ' This process has too many open files: raise its limit (ulimit -n), then run the command again.';

export async function runCommandLine(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0; commander has written its message to stderr.
      if (json && error.exitCode !== 0) {
        process.stdout.write(`${terminalJson({ ok: false, code: 'INVALID_ARGUMENTS', error: error.message.replace(/^error: /, '') })}\n`);
      }
      return error.exitCode;
    }
    const text = errorText(error);
    const message = (error as NodeJS.ErrnoException).code === 'EMFILE' ? `${text}${text.endsWith('.') ? '' : '.'}${OUT_OF_FILE_DESCRIPTORS}` : text;
    const code = error instanceof CliError ? error.code : 'FAILED';
    if (json) process.stdout.write(`${terminalJson({ ok: false, code, error: withoutPersonIsolates(message) })}\n`);
    else writeError(`Error: ${message}`);
    return 1;
  }
}

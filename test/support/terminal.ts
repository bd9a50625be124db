/** `script` (util-linux) gives the CLI a real terminal: the answer is typed once `question` shows. */
import { spawn } from 'node:child_process';
import { CLI_COMMAND } from './cli.js';

/**
 * Without `question`, nothing is typed: the output of a command that asks nothing. `size`: the
 * terminal's rows and columns (`script` gives 0 by 0, a screen too small to redraw rows on).
 */
export function cliInTerminal(
  args: string[],
  options: { cwd: string; env: Record<string, string>; question?: string; answer?: string; size?: { rows: number; columns: number } },
): Promise<string> {
  const cli = [CLI_COMMAND.command, ...CLI_COMMAND.args, ...args].map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  const command = options.size ? `stty rows ${options.size.rows} cols ${options.size.columns} && ${cli}` : cli;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let answered = false;
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (!answered && options.question !== undefined && output.includes(options.question)) {
      answered = true;
      child.stdin.write(`${options.answer}\n`);
    }
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('close', () => {
      clearTimeout(guard);
      resolve(output);
    }),
  );
}

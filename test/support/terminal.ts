/** `script` (util-linux) gives the CLI a real terminal: the answer is typed once `question` shows. */
import { spawn } from 'node:child_process';
import { CLI_COMMAND } from './cli.js';

export function cliInTerminal(args: string[], options: { cwd: string; env: Record<string, string>; question: string; answer: string }): Promise<string> {
  const command = [CLI_COMMAND.command, ...CLI_COMMAND.args, ...args].map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let answered = false;
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (!answered && output.includes(options.question)) {
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

import { createInterface } from 'node:readline/promises';
import { programHandles } from '../transports/process-group.js';
import { INTERRUPTED_EXIT_CODE } from './exit-codes.js';

/**
 * readline reads the terminal in raw mode, so Ctrl-C reaches a prompt as a key, not as SIGINT;
 * left to readline it closes the prompt, which a command reads as an answer or as a failure of
 * its own. It is handed on as the SIGINT it would have been, at once (a real signal would come
 * after the keys typed behind it, an Enter among them): a command that handles Ctrl-C cancels
 * as it does anywhere else; one that does not ends as the shell would end it.
 */
function interrupted(): void {
  if (programHandles('SIGINT')) {
    process.emit('SIGINT', 'SIGINT');
    return;
  }
  process.stderr.write('Cancelled.\n');
  process.exit(INTERRUPTED_EXIT_CODE);
}

/** The question being asked now: the next one waits for its answer. */
let asking: Promise<unknown> = Promise.resolve();

/**
 * One question on the terminal, asked on stderr (stdout may carry a result or a protocol). One at
 * a time: two prompts open on stdin would both take the same typed line, so a server asking two
 * pages at once would have one "y" open both.
 */
export function askOnTerminal(question: string, signal?: AbortSignal): Promise<string> {
  const turn = asking.then(() => askNow(question, signal));
  asking = turn.catch(() => undefined);
  return turn;
}

async function askNow(question: string, signal?: AbortSignal): Promise<string> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  prompt.on('SIGINT', interrupted);
  // After Ctrl-Z and `fg` readline pauses its input and leaves resuming it to a listener: with
  // none, the prompt is shown again and reads nothing, Ctrl-C included.
  prompt.on('SIGCONT', () => prompt.resume());
  try {
    return await prompt.question(question, signal ? { signal } : {});
  } finally {
    prompt.close();
  }
}

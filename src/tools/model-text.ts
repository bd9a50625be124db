/**
 * Names and error messages in the loader tools' text for the model. A server's name and
 * description come from a config file, a tool's name from a server or the model: one with a line
 * break would start a line of its own making ("SYSTEM: ignore …"), an escape sequence would reach
 * whatever shows the transcript on a terminal. They reach the model's text only through these.
 */
import { errorMessage } from '../../machines/to-error.js';
import { terminalLine, terminalText } from '../../machines/control-characters.js';

// Shared with the gateway's messages and the library's log lines, which do not import the tools.
export { quoted } from '../../machines/control-characters.js';

/**
 * An error's message, control characters escaped. The errors of the manager quote the server's
 * name as it is: each time it appears, it is shown on one line, as `quoted` shows it.
 */
export function errorText(error: unknown, server?: string): string {
  const message = errorMessage(error);
  return terminalText(server === undefined ? message : message.split(server).join(terminalLine(server)));
}

import { terminalText } from '../../machines/control-characters.js';

// Where the escaping lives: the loader tools' definitions need it too, and do not import the CLI.
export { commandWord, terminalLine, terminalText } from '../../machines/control-characters.js';

/**
 * What to print for an error: its message, or — when that is empty, as with some OAuth
 * errors — its OAuth error code, else its name. Never an empty line.
 */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message.trim();
  if (message !== '') return message;
  const code = (error as { errorCode?: unknown }).errorCode;
  if (typeof code === 'string' && code !== '') return code;
  return error.name || 'unknown error';
}

/** A line on stderr: everything there is escaped (messages carry names, stderr tails, error bodies). */
export function writeError(text: string): void {
  process.stderr.write(`${terminalText(text)}\n`);
}

/** A listing on stdout (servers, a manifest): escaped like stderr. Tool results are written as they are. */
export function writeListing(text: string): void {
  process.stdout.write(`${terminalText(text)}\n`);
}

// JSON.stringify escapes C0 but leaves DEL, C1, the bidi marks and the invisible ones (zero-width
// space, LRM/RLM, BOM: control-characters.ts) raw; `\uXXXX` keeps the JSON valid.
const RAW_IN_JSON = /[\x7f-\x9f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** JSON for scripts, with no raw control character: the same data, safe to `cat`. */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

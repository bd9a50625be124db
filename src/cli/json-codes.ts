import { withoutPersonIsolates } from '../../machines/control-characters.js';

/**
 * The `code` of every failure the command line reports: with `--json`, `{ ok: false, code, … }`
 * carries one of these, and the README's table lists them. One style: UPPER_SNAKE, as
 * `McpServerError.code` is (those codes are in the list too).
 */
export const CLI_ERROR_CODES = {
  INVALID_ARGUMENTS: 'the command line itself is wrong: an unknown flag, a missing or malformed argument, tool arguments nested too deep to send',
  UNKNOWN_SERVER: 'no server of that name is configured (or, for remove/get, in that file)',
  SERVER_DISABLED: 'the server is off: "disabled": true, a project server not approved yet, or project servers denied',
  NOT_ALLOWED: '--allow / --deny keep the server out, or the permissions switch the command off',
  TOOL_NOT_ALLOWED: '--allow-tool / --deny-tool or a config file pattern refuses the tool',
  DECLINED: 'the person answered no (a tool call, a change to a file)',
  APPROVAL_REQUIRED: 'the tool call needs approval and nobody could be asked',
  TIMEOUT: 'the server or registry did not answer within --timeout',
  TOOL_ERROR: 'the tool ran and reported an error (isError)',
  CONFIG_ERROR: 'the server cannot start as configured (command not found, bad URL, HTTP 401/403/404)',
  CONNECT_FAILED: 'the server could not be connected',
  NOT_CONNECTED: 'the server is not connected',
  CONNECTION_LOST: 'the connection was lost during the request; it may or may not have taken effect',
  DISCONNECTED: 'the server was disconnected during the request',
  RESTORED: 'embedding only: a request of a registry persisted while it waited, answered by the restored registry; nothing was replayed',
  REQUEST_FAILED: 'the server answered the request with an error',
  ABORTED: 'the request was cancelled',
  SERVER_CRASHED: 'the server process exited during the request',
  CHECK_FAILED: 'a checked server does not work: it needs a login or failed (doctor, servers --check, get --check)',
  CONFIG_PROBLEMS: 'a config file or an entry has errors (servers, doctor), or the server named was skipped for one',
  CONFIG_UNREADABLE: "the config file to change cannot be read, or is a project file discovery ignores (another user's, or others may write it or its folder); nothing was changed",
  CONFIG_INVALID: 'the config file to change is not valid JSON, not an mcp.json, or holds a value nested too deeply to write back; nothing was changed',
  CONFIG_LOCKED: 'another process kept the config file to change locked for 10 s; nothing was changed',
  INVALID_NAME: 'the server name cannot be used',
  INVALID_JSON: 'the JSON given on the command line is not valid',
  INVALID_ENTRY: 'the server definition is not a valid entry',
  ALREADY_EXISTS: 'an entry of that name is there; --force replaces it',
  AMBIGUOUS_SCOPE: 'the name is in both files; say which with --scope',
  NEEDS_CONFIRMATION: 'the change needs a yes and there is no terminal; pass --yes',
  NOTHING_TO_IMPORT: 'no servers were found to import',
  UNKNOWN_APPROVAL: 'no approval of that name to revoke',
  NOT_INDEXED: 'search: the server has no manifest in the index; run `mcp-statechart index`',
  NOT_FOUND: 'the registry has no server or version of that name',
  DELETED: 'the registry marks the server deleted',
  NOTHING_INSTALLABLE: 'the registry document has no package or remote this can run',
  REGISTRY_UNREACHABLE: 'the registry could not be reached',
  REGISTRY_ERROR: 'the registry answered with an HTTP error',
  REGISTRY_INVALID: 'the registry answered with a document that is not valid',
  OUTPUT_NEEDS_FOLDER: '--output names a file but there are several to save',
  OUTPUT_EXISTS: 'a file --output would write is already there; --force replaces it',
  OUTPUT_TOO_MANY: 'the result has more files to save than --max-files (100 unless given); nothing was saved',
  OUTPUT_FAILED: 'a file could not be written',
  WRITE_FAILED: 'a config or state file could not be written (a full disk, a read-only folder, no permission)',
  FAILED: 'anything else; the message says what',
} as const;

export type CliErrorCode = keyof typeof CLI_ERROR_CODES;

function isListed(code: string | undefined): code is CliErrorCode {
  return code !== undefined && Object.hasOwn(CLI_ERROR_CODES, code);
}

/** A code from elsewhere (an `McpServerError`, an errno, an HTTP status) as one of the list: `FAILED` when it is none. */
export function listedCode(code: string | undefined): CliErrorCode {
  return isListed(code) ? code : 'FAILED';
}

/** What `--json` prints for a failure explained for a person (load, call, read, prompts, prompt): the code at the top, as every command has it. */
export function failureJson<Explanation extends { code?: string; message?: string; hint?: string }>(server: string, error: Explanation, fallback: CliErrorCode = 'FAILED') {
  const code = error.code === undefined ? fallback : listedCode(error.code);
  const plain = { ...error, code, ...(error.message === undefined ? {} : { message: withoutPersonIsolates(error.message) }) };
  return { ok: false as const, code, server, error: error.hint === undefined ? plain : { ...plain, hint: withoutPersonIsolates(error.hint) } };
}

/** A failure a command words for a person, with its code for scripts and, when there is one, what to do next. */
export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

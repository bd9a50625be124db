/** Errors from the manager, turned into text that tells the model what happened and what it can do. */
import { isManagerDisposed, isRedefinedInConfig, isRemovedFromConfig, isSwitchedOffInConfig, McpServerError, serverCrashedWhat } from '../../machines/errors.js';
import type { PublicServerState } from '../../machines/types.js';
import { commandWord, terminalText } from '../../machines/control-characters.js';
import { abortedAtStart, endedFromOutside, isExitedAtStart, shortageAtStart, SHORTAGE_WORDS } from '../errors/exited-at-start.js';
import { loginCommandAdvice, loginReasonOf } from '../errors/oauth.js';
import { errorMessage } from '../../machines/to-error.js';
import type { LoaderToolsSurface } from './surface.js';
import { missingCapabilities } from '../connection/missing-handler.js';
import { isTaskCutOff, isTaskTimeLimit } from '../connection/task-time-limit.js';
import { errorText, quoted } from './model-text.js';
import type { LossOutcome } from './loss-outcome.js';
import { isOverMessageLimit, MAX_MESSAGE_MIB } from '../transports/message-size.js';

/**
 * A request to a server that is not connected. After a failed load it says why and what to do,
 * as load_mcp said it: "call load_mcp first" alone would send the model into the same failure.
 */
export function loadFirstText(server: string, state: PublicServerState, lastError: Error | undefined, surface: LoaderToolsSurface): string {
  if (lastError !== undefined) return `MCP server ${quoted(server)} is not connected (state: ${state}): its last load failed.\n${failureLines(server, lastError, surface)}`;
  return `MCP server ${quoted(server)} is not connected (state: ${state}). Call load_mcp with server ${quoted(server)} first, then try again.`;
}

/** The stderr tail unless the message already carries it (connect failures do). */
function stderrSection(error: unknown): string {
  if (!(error instanceof McpServerError)) return '';
  const tail = error.stderrTail?.trim();
  if (!tail || error.message.includes(tail)) return '';
  return `\nLast stderr lines of the server:\n${terminalText(tail)}`;
}

/** The error's own advice is for the program that sent the request; the model starts a server with load_mcp. */
function messageText(error: unknown, server: string, surface: LoaderToolsSurface): string {
  if (error instanceof McpServerError && error.code === 'SERVER_CRASHED') {
    return errorText(`${serverCrashedWhat(server, error.cause)} Call load_mcp with server ${quoted(server)} to start it again.`, server);
  }
  // The command is for a terminal on the machine serve runs on: what to do is said after the error, for whoever can.
  if (surface !== 'library' && loginReasonOf(error) !== undefined) return errorText(errorMessage(error).split(loginCommandAdvice(server)).join(''), server);
  return errorText(error, server);
}

/** An error's text with the server's stderr tail under it when it carries one (a stdio server whose process died), as the model and a host are told it. */
export function failureWithStderrText(error: unknown, server: string, surface: LoaderToolsSurface): string {
  return `${messageText(error, server, surface)}${stderrSection(error)}`;
}

/**
 * How a host's own request (a prompt get, a resource read) that wants a login ends, for the person
 * who reads it there: the login's error carries the advice for a terminal on the library's machine
 * (what an application's own user is told, kept as it is).
 */
const HOST_LOGIN_ADVICE: Record<Exclude<LoaderToolsSurface, 'library'>, (server: string) => string> = {
  serve: (server) => `; sign in by running \`mcp-statechart login ${commandWord(server)}\` in a terminal on the machine mcp-statechart serve runs on (as the account that runs it), then ask again`,
  gateway: (server) => `; only the operator of this MCP gateway can sign in to it, on the gateway's own machines (\`mcp-statechart login ${commandWord(server)}\` on each): ask them, then ask again`,
};

/** A host's own request's failure (a prompt get, a resource read): its person, not its model, reads it, and is told who can log in where it wants a login. */
export function hostFailureText(error: unknown, server: string, surface: LoaderToolsSurface): string {
  const reason = loginReasonOf(error);
  const advice = surface !== 'library' && reason !== undefined && reason !== 'unpinned' ? HOST_LOGIN_ADVICE[surface](server) : '';
  return `${failureWithStderrText(error, server, surface)}${advice}`;
}

/** Only a person can log in, and then the same entry works: "fix the entry" would send them the wrong way. */
const LOGIN_STEP: Record<LoaderToolsSurface, (server: string) => string> = {
  library: () => 'the server needs the user to log in (OAuth), which you cannot do: tell the user to run the `mcp-statechart login` command the error names, then call load_mcp again.',
  serve: (server) =>
    `the server needs an OAuth login, which you cannot make: tell the user to sign in by running \`mcp-statechart login ${commandWord(server)}\` in a terminal on the machine mcp-statechart serve runs on (as the account that runs it), then call load_mcp again.`,
  gateway: (server) =>
    `the server needs an OAuth login that only the operator of this MCP gateway can make, on the gateway's own machine (neither you nor the user can do it from here): tell the user to ask the gateway's operator to sign in to MCP server ${quoted(server)} (\`mcp-statechart login ${commandWord(server)}\` on each of its machines), then call load_mcp again.`,
};

/** A login only a person can make (not `unpinned`: that is the entry's issuer, which the user fixes in the config). */
function needsLogin(error: unknown): boolean {
  const reason = loginReasonOf(error);
  return reason !== undefined && reason !== 'unpinned';
}

function nextStepAfterLoadFailure(error: unknown, server: string, surface: LoaderToolsSurface): string {
  const code = error instanceof McpServerError ? error.code : undefined;
  // The application's own doing (a loop still running after its shutdown): no retry can help.
  if (error instanceof McpServerError && isManagerDisposed(error.cause)) {
    return 'this application has shut down its MCP connections, so no MCP server can be loaded again in this session: go on without MCP tools, and tell the user if the task needs them.';
  }
  const shortage = error instanceof McpServerError ? shortageAtStart(error.cause, error.stderrTail) : undefined;
  if (shortage !== undefined) {
    const { short, raise } = SHORTAGE_WORDS[shortage];
    return `the server's process could not get the ${short} it needs on this machine (its stderr says so), not a fault in its config: call load_mcp again once fewer servers are loaded; if it fails again, tell the user to raise ${raise}.`;
  }
  if (error instanceof McpServerError && endedFromOutside(error.cause)) {
    return "a signal from outside ended the server's process while it was connecting (a kill by hand, or the system running out of memory), not a fault in its command: call load_mcp again; if it is ended again, tell the user.";
  }
  if (error instanceof McpServerError && abortedAtStart(error.cause)) {
    return "the server's process aborted while starting: its command crashed, or this machine is short of threads, processes or memory: tell the user which server failed, with its stderr, so they can tell which.";
  }
  if (error instanceof McpServerError && isExitedAtStart(error.cause)) {
    // It was retried per backoff (a download or a busy port can pass): another load will likely fail the same way, not surely.
    return "the server's command fails at start, and calling load_mcp again will likely fail the same way until its command or config is fixed: tell the user which server failed and why, so they can fix it.";
  }
  if (needsLogin(error)) return LOGIN_STEP[surface](server);
  if (code === 'CONFIG_ERROR') {
    return 'its config entry cannot work as written, so retrying will not help: tell the user which server failed and why, so they can fix the entry.';
  }
  return 'the server may be down or slow to start: call load_mcp again later, do without it, or tell the user what failed.';
}

function failureLines(server: string, error: unknown, surface: LoaderToolsSurface): string {
  return `Error: ${failureWithStderrText(error, server, surface)}\nWhat you can do: ${nextStepAfterLoadFailure(error, server, surface)}`;
}

export function loadFailureText(server: string, state: PublicServerState, error: unknown, surface: LoaderToolsSurface): string {
  return `Could not load MCP server ${quoted(server)} (state: ${state}).\n${failureLines(server, error, surface)}`;
}

/** A request cut off by a lost connection the manager may reconnect by itself: what the model is told then depends on whether it does. */
export function isPlainLoss(error: unknown): boolean {
  return (
    error instanceof McpServerError &&
    error.code === 'CONNECTION_LOST' &&
    !isOverMessageLimit(error.cause) &&
    !isTaskCutOff(error.cause) &&
    !isRemovedFromConfig(error.cause) &&
    !isSwitchedOffInConfig(error.cause) &&
    !isRedefinedInConfig(error.cause)
  );
}

function afterLossText(server: string, outcome: LossOutcome | undefined): string {
  const mayHave = 'The request may or may not have taken effect';
  if (outcome === 'restarting') {
    return `${mayHave}. The server is being restarted by itself: call again if the request should still run (no load_mcp needed).`;
  }
  if (outcome === 'given up') {
    return `${mayHave}. The server will not reconnect by itself: call load_mcp with server ${quoted(server)} to start it again before trying again.`;
  }
  return `${mayHave}. Call again if the request should still run; if the server is then not connected, call load_mcp with server ${quoted(server)}.`;
}

/**
 * For a tool call or a resource read that the manager rejected; `lastError` is what put the server
 * in `error`, if it is there; `outcome` where the server went after a lost connection (isPlainLoss);
 * `surface` whose model is told (what it may tell its user to do differs).
 */
export function requestFailureText(server: string, state: PublicServerState, error: unknown, surface: LoaderToolsSurface, lastError?: Error, outcome?: LossOutcome): string {
  if (!(error instanceof McpServerError)) return errorText(error, server);
  if (isOverMessageLimit(error.cause)) return `${failureWithStderrText(error, server, surface)}\n${OVER_MESSAGE_LIMIT}`;
  // A login that ran out mid-session (its refresh refused): who can log in, as load_mcp says it.
  if (needsLogin(error)) return `${failureWithStderrText(error, server, surface)}\nWhat you can do: ${LOGIN_STEP[surface](server)}`;
  switch (error.code) {
    case 'NOT_CONNECTED':
      return loadFirstText(server, state, lastError, surface);
    case 'CONNECTION_LOST':
    case 'DISCONNECTED':
      if (isTaskCutOff(error.cause)) return `${failureWithStderrText(error, server, surface)}\n${TASK_CUT_OFF}`;
      if (isRemovedFromConfig(error.cause)) return `${errorText(error, server)}\n${REMOVED_FROM_CONFIG}`;
      if (isSwitchedOffInConfig(error.cause)) return `${errorText(error, server)}\n${switchedOffText(server)}`;
      if (isRedefinedInConfig(error.cause)) return `${errorText(error, server)}\n${REDEFINED_IN_CONFIG}`;
      if (error.code === 'CONNECTION_LOST') return `${failureWithStderrText(error, server, surface)}\n${afterLossText(server, outcome)}`;
      return (
        `${failureWithStderrText(error, server, surface)}\nThe request may or may not have taken effect. Call load_mcp with server ` +
        `${quoted(server)} to reconnect before trying again.`
      );
    case 'SERVER_CRASHED':
      return messageText(error, server, surface);
    case 'TIMEOUT':
      return `${errorText(error, server)}\n${isTaskTimeLimit(error.cause) ? TASK_TIME_LIMIT : REQUEST_TIME_LIMIT}`;
    default:
      if (isTaskTimeLimit(error.cause)) return `${errorText(error, server)}\n${TASK_TIME_LIMIT}`;
      return missingCapabilities(error.cause) === undefined ? errorText(error, server) : `${errorText(error, server)}\n${NO_INPUT_ANSWERED}`;
  }
}

// The server would send the same answer again: only a request for less can succeed.
const OVER_MESSAGE_LIMIT =
  `The server's answer is over the ${MAX_MESSAGE_MIB} MiB limit, so calling again the same way fails the same way (the request may have taken effect): ` +
  'ask for less (narrower arguments, a filter, a page at a time), or tell the user.';

// The entry is gone from the config: load_mcp cannot reach the server, whatever the model tries.
const REMOVED_FROM_CONFIG =
  'The request may or may not have taken effect. The server is no longer configured, so load_mcp cannot reach it: do without it, or tell the user.';

// Off until its entry is enabled again, which only the user does: under serve, a changed entry waits for approve.
function switchedOffText(server: string): string {
  return (
    'The request may or may not have taken effect. The server is off now, so load_mcp cannot reach it until its entry is enabled again ' +
    `(under mcp-statechart serve, an entry that changed while serving is off until the user runs "mcp-statechart approve ${commandWord(server)}"): ` +
    'do not call it again now; tell the user.'
  );
}

// The manager reconnects the server with its new definition by itself: a load_mcp would only wait for that.
const REDEFINED_IN_CONFIG =
  'The request may or may not have taken effect. The server is restarting with its new definition by itself: send the request again if it should still run (while it is still connecting, load_mcp waits for it).';

// The cancel is a request the server may ignore or get too late, and a model that retries a write would do it twice.
const REQUEST_TIME_LIMIT =
  'The server was told to stop, but the request may or may not have taken effect: before repeating one that changes something, check whether it did. ' +
  "The time limit is this application's, so the same request will likely time out again: ask for less at a time, or tell the user.";

// The time limit is the application's (its timeout setting); the model cannot give a longer one.
const TASK_TIME_LIMIT =
  "The tool ran as a task that was still working at this application's time limit, so calling it again will likely end the same way: tell the user it needs a longer time limit (the application's timeout setting).";

// A task-only tool's call started a task on the server, which a lost connection does not end.
const TASK_CUT_OFF =
  'The task the call started may still run on the server, and calling the tool again starts another: tell the user, rather than calling it again at once.';

// The error names the option a developer must give; the model can only stop and say so.
const NO_INPUT_ANSWERED =
  'The tool needs input (a form, a sampling or the roots) that this application does not answer, so calling it again will not help: tell the user it cannot be used here.';

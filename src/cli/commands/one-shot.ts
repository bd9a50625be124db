import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../../machines/options.js';
import type { DiscoveryResult } from '../../config/index.js';
import { readConfigFile } from '../../config/read-config-file.js';
import { isServerAllowed } from '../../tools/permissions.js';
import type { LoaderToolCallOptions, LoaderToolName, LoaderToolResult } from '../../tools/index.js';
import { LISTED_SINCE_LAST_CALL, SCHEMAS_ADVICE } from '../../tools/unknown-tool.js';
import { explainFailureAsking, formatFailure, missingResourceExplanation, offExplanation, missingServerExplanation, type FailureExplanation, type ListedResources } from '../failure-text.js';
import { logLifecycle } from '../lifecycle-log.js';
import { cliLogger, outcomeLogger } from '../logger.js';
import { commandWord, terminalJson, terminalText, writeError, writeListing } from '../terminal-text.js';
import { discoverFor, isInteractive, permissionsFrom, type GlobalOptions } from '../options.js';
import { serverDenial, toolDenial } from '../permission-text.js';
import { ProgressDisplay } from '../progress-display.js';
import { connectingLine } from '../connecting-line.js';
import { oneShotDefaults, openLoaderSession } from '../session.js';
import { CliError, failureJson } from '../json-codes.js';
import { keepRawResults, type RawResult, type RawResultKeeper } from '../raw-results.js';
import { outputTakenBeforeRun, wholeResult, withinBytes, type OutputTarget, type SavedFile, type WholeResult } from '../whole-result.js';
import { terminalApproval } from '../tool-call-approval.js';
import { pageOpeningHandlers } from '../page-opening.js';
import { INTERRUPTED_EXIT_CODE } from '../exit-codes.js';
import { cancellingTaskText } from '../cancelling-task.js';
import { endIfInterrupted, sayCancelled } from '../cancel-on-interrupt.js';
import { isManifestSummary, manifestListing } from '../manifest-listing.js';
import { callWhileProgressing } from '../../tools/progress-time-limit.js';

export interface OneShotOptions {
  /** `--timeout`: milliseconds the request may take, whatever the server's config says. */
  timeoutMs?: number;
  /** Print one JSON object on stdout (success or failure) instead of text. */
  json?: boolean;
  /** `--max-bytes`: print at most this many bytes of the result (call, read). */
  maxBytes?: number;
  /** `--output` / `--force`: where images, audio and binary resources are saved (call, read). */
  output?: OutputTarget;
}

/** What `--json` prints: the same shape for every command, so a script checks `ok` first. */
type JsonReport =
  | { ok: true; server: string; text: string; data?: unknown; saved?: SavedFile[]; cut?: { shownBytes: number; totalBytes: number } }
  | { ok: false; server: string; error: FailureExplanation };

/**
 * Why a person cannot use this server from here, in their words, before anything is started:
 * unknown, disabled, or not allowed by --allow/--deny.
 */
export function refusal(discovery: DiscoveryResult, options: GlobalOptions, server: string, tool: string | undefined): FailureExplanation | undefined {
  if (!isServerAllowed(permissionsFrom(options), server)) {
    const why = serverDenial(options, server);
    return { code: 'NOT_ALLOWED', message: `server "${server}" is not allowed here${why ? `: ${why}` : ''}`, hint: 'change the --allow / --deny flags to use it' };
  }
  const entry = Object.hasOwn(discovery.servers, server) ? discovery.servers[server] : undefined;
  if (!entry) return missingServerExplanation(server, discovery);
  if (entry.disabled) return offExplanation(server, entry);
  const toolWhy = tool === undefined ? undefined : toolDenial(options, discovery.toolPermissions ?? {}, server, tool);
  if (toolWhy !== undefined) {
    return {
      code: 'TOOL_NOT_ALLOWED',
      message: `tool "${tool}" of server "${server}" is not allowed here: ${toolWhy}`,
      hint: 'change that flag or pattern to use it',
    };
  }
  return undefined;
}

/** A server's answer that the arguments are wrong (JSON-RPC -32602, invalid params), as the SDK's servers word it. */
export const INVALID_PARAMS = /MCP error -32602\b/;
/** The same refusal of a tool's arguments by a v2 SDK server: its error result has the words without the code. */
const ARGUMENTS_REFUSED = /^Input validation error: Invalid arguments for tool /;

/**
 * A failure told in words only; an unknown tool's advice to the model (read load_mcp's answer)
 * becomes the command a person runs, as does a tool's refusal of its arguments.
 */
function plainFailure(server: string, code: string, text: string): FailureExplanation {
  const showsArguments = `\`mcp-statechart load ${commandWord(server)}\` shows each tool with its arguments`;
  if (text.endsWith(` ${SCHEMAS_ADVICE}`)) {
    return { code, message: text.slice(0, -SCHEMAS_ADVICE.length - 1).replace(` ${LISTED_SINCE_LAST_CALL}`, ''), hint: showsArguments };
  }
  if (code === 'TOOL_ERROR' && (INVALID_PARAMS.test(text) || ARGUMENTS_REFUSED.test(text))) return { code, message: text, hint: showsArguments };
  return { code, message: text };
}

/** A call that did not run for want of approval: the person's own "no", or a policy nobody could be asked about. */
function refusedCall(args: Record<string, unknown> & { server: string }, declined: boolean, interactive: boolean, policy: string | undefined): FailureExplanation {
  const call = `tool "${String(args.tool)}" of server "${args.server}"`;
  if (declined) return { code: 'DECLINED', message: `you declined the call of ${call}; it did not run` };
  if (!interactive && process.stdin.isTTY && process.stdin.readableEnded) {
    return {
      code: 'APPROVAL_REQUIRED',
      message: `the call of ${call} did not run: --approve ${policy ?? 'destructive'} asks about it, and the terminal's input went to the tool arguments (-), so no answer can be read`,
      hint: 'give the arguments inline or with --args-file to answer the question, or choose another --approve policy',
    };
  }
  if (!interactive) {
    return {
      code: 'APPROVAL_REQUIRED',
      message: `the call of ${call} did not run: --approve ${policy ?? 'destructive'} asks about it, and there is no terminal to ask on`,
      hint: 'run the command on a terminal to answer, or choose another --approve policy',
    };
  }
  return { code: 'APPROVAL_REQUIRED', message: `the call of ${call} did not run: it needs approval and its arguments cannot be shown whole on the form` };
}

/**
 * `load`, `call` and `read`: one loader tool call, its text on stdout; on failure an explanation
 * for a person on stderr (what failed, why, what to do) and exit code 1; `--json` prints either
 * as one object. Only a tool result or resource on a pipe is printed raw; everything else is escaped.
 * `call` shows the server's progress on stderr. Ctrl-C cancels the request (the server is sent
 * notifications/cancelled) and exits 130. The servers are disconnected before the command returns.
 */
export async function runOneShot(
  options: GlobalOptions,
  tool: LoaderToolName,
  args: Record<string, unknown> & { server: string },
  { timeoutMs, json = false, maxBytes, output }: OneShotOptions = {},
): Promise<number> {
  const logger = cliLogger(options.verbose);
  const discovery = await endIfInterrupted(discoverFor([args.server], options, logger), json, args.server);
  const sessionLogger = outcomeLogger(options.verbose);
  /** Keeps the raw answer of `call` and `read`, printed whole. */
  let keeper: RawResultKeeper | undefined;
  /** What the server listed when it was loaded: `read` of a URI it does not have names them. */
  let listed: ListedResources | undefined;
  const printedOnTerminal = !json && process.stdout.isTTY === true;
  const report = (result: JsonReport): number => {
    sessionLogger.settle(!result.ok);
    if (json) process.stdout.write(`${terminalJson(result.ok ? result : failureJson(result.server, result.error))}\n`);
    else if (!result.ok) process.stderr.write(`${formatFailure(result.error)}\n`);
    // A manifest is a listing for a person, escaped.
    else if (tool === 'load_mcp') writeListing(isManifestSummary(result.data) ? manifestListing(result.data) : result.text);
    else {
      // A tool result or resource goes to a pipe or file as the server sent it (a script needs the
      // data); on a terminal its escape sequences would clear the screen or write the clipboard.
      process.stdout.write(`${printedOnTerminal ? terminalText(result.text) : result.text}\n`);
      if (result.cut) writeError(`[Cut: printed ${result.cut.shownBytes} of ${result.cut.totalBytes} bytes (--max-bytes ${maxBytes}).]`);
    }
    return result.ok ? 0 : 1;
  };
  /** A tool result or resource whole, as the server sent it: no model budget; files saved with --output. */
  const reportWhole = async (raw: RawResult, data: unknown): Promise<number> => {
    let whole: WholeResult;
    try {
      whole = await wholeResult(args.server, raw, output);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      return report({ ok: false, server: args.server, error: cliFailure(error) });
    }
    // The limit holds for what is printed: on a terminal, the text as escaped.
    const fitted = maxBytes === undefined ? undefined : withinBytes(whole.text, maxBytes, printedOnTerminal ? terminalText : undefined);
    return report({
      ok: true,
      server: args.server,
      text: fitted?.text ?? whole.text,
      ...(data === undefined ? {} : { data }),
      ...(whole.saved.length > 0 ? { saved: whole.saved } : {}),
      ...(fitted?.cut ? { cut: { shownBytes: fitted.shownBytes, totalBytes: fitted.total } } : {}),
    });
  };
  const failed = async (result: LoaderToolResult): Promise<number> =>
    report({
      ok: false,
      server: args.server,
      // A tool's own isError answer has no error object: its text is already plain words.
      error:
        result.error === undefined
          ? plainFailure(args.server, keeper?.last()?.kind === 'tool' ? 'TOOL_ERROR' : 'FAILED', result.text)
          : (tool === 'read_mcp_resource' ? missingResourceExplanation(args.server, String(args.uri), result.error, discovery.servers[args.server], listed) : undefined) ??
            (await explainFailureAsking(args.server, result.error, discovery.servers[args.server])),
    });

  const refused = refusal(discovery, options, args.server, tool === 'call_mcp_tool' && typeof args.tool === 'string' ? args.tool : undefined);
  if (refused) return report({ ok: false, server: args.server, error: refused });
  const taken = await outputTakenBeforeRun(output);
  if (taken) return report({ ok: false, server: args.server, error: cliFailure(taken) });

  const interactive = isInteractive();
  const terminal = terminalApproval(options.approve, interactive);
  // The refusal text is worded for a model; the person is told what they did, or what refused.
  let declined = false;
  const ask = terminal.approveToolCall;
  const approval = {
    ...terminal,
    approveToolCall:
      ask &&
      (async (...request: Parameters<typeof ask>) => {
        const decision = await ask(...request);
        declined = decision === 'deny';
        return decision;
      }),
  };
  // On a terminal a server may ask the person to open a page: they see its domain and say yes first.
  const handlers = interactive ? pageOpeningHandlers() : undefined;
  const { manager, tool: find } = openLoaderSession(discovery, options, sessionLogger, { defaults: oneShotDefaults(connectTimeoutFor(tool, timeoutMs)), ...(handlers ? { handlers } : {}) }, {
    ...approval,
    // A person reads `load` whole, as `call` and `read` print whole results: the model's budget would list 401 of 5,000 resources.
    ...(tool === 'load_mcp' ? { resultBudget: Number.POSITIVE_INFINITY } : {}),
    toolsView: tool === 'load_mcp' ? undefined : (manager) => (keeper = keepRawResults(manager)).manager,
  });
  if (options.verbose) logLifecycle(manager, (line) => process.stderr.write(`${line}\n`));
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  process.once('SIGINT', onInterrupt);
  const began = Date.now();
  const progress = tool === 'call_mcp_tool' ? new ProgressDisplay(process.stderr) : undefined;
  const loadDeadline = tool === 'load_mcp' && timeoutMs !== undefined ? AbortSignal.timeout(timeoutMs) : undefined;
  const callOptions = oneShotRequestOptions(interrupt.signal, timeoutMs, progress);
  let connecting: { finish(): void } | undefined;
  try {
    const loader = find(tool);
    if (!loader) return report({ ok: false, server: args.server, error: { code: 'NOT_ALLOWED', message: `${tool} is switched off by the permissions` } });
    // --verbose writes the connection's steps as lines, which a redrawn row would overwrite.
    if (!options.verbose) connecting = connectingLine(args.server);
    if (tool !== 'load_mcp') {
      // A one-shot command is its own whole session: it loads the server the model would have loaded first.
      const loaded = await find('load_mcp')!.execute({ server: args.server }, { signal: interrupt.signal });
      connecting?.finish();
      if (loaded.isError) return failed(loaded);
      if (isManifestSummary(loaded.data)) listed = loaded.data;
    }
    // load_mcp takes no request timeout: `load --timeout` bounds the whole load instead.
    const result = await loader.execute(args, tool === 'load_mcp' && loadDeadline ? { ...callOptions, signal: AbortSignal.any([interrupt.signal, loadDeadline]) } : callOptions);
    connecting?.finish();
    progress?.finish();
    // A refused approval reads as an answer to the model; to a script, the call failed.
    if (result.refused) return report({ ok: false, server: args.server, error: refusedCall(args, declined, interactive, options.approve) });
    if (result.isError) return failed(result);
    const whole = keeper?.last();
    if (whole) return reportWhole(whole, result.data);
    return report({ ok: true, server: args.server, text: result.text, ...(result.data === undefined ? {} : { data: result.data }) });
  } catch (error) {
    connecting?.finish();
    if (loadDeadline?.aborted && !interrupt.signal.aborted) {
      return report({
        ok: false,
        server: args.server,
        error: { code: 'TIMEOUT', message: `"${args.server}" did not load within ${timeoutMs} ms`, hint: 'give it more time with --timeout <ms>, or run `mcp-statechart doctor` to see why' },
      });
    }
    if (!interrupt.signal.aborted) throw error;
    progress?.finish();
    sayCancelled(json, args.server);
    // The close below waits for a task's cancel to be answered: said, so it is not seconds of silence.
    const waiting = tool === 'call_mcp_tool' ? cancellingTaskText(manager, args.server, began) : undefined;
    if (waiting !== undefined) writeError(waiting);
    return INTERRUPTED_EXIT_CODE;
  } finally {
    process.off('SIGINT', onInterrupt);
    await manager.dispose();
    // Not reported (cancelled, or an error the caller prints): what the session warned of is still news.
    sessionLogger.settle(false);
  }
}

/**
 * `load --timeout` bounds connecting, as it says; `call` and `read` time their request apart from
 * connecting, which gets as long when that is longer than the default, so a slow server can start.
 */
function connectTimeoutFor(tool: LoaderToolName, timeoutMs: number | undefined): number | undefined {
  if (timeoutMs === undefined || tool === 'load_mcp') return timeoutMs;
  return Math.max(timeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
}

/** The `[json-arguments]` of `call`: a JSON object, or a clear error naming what is wrong. */
export function parseJsonArguments(text: string | undefined, origin = 'The tool arguments'): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError('INVALID_ARGUMENTS', `${origin} are not valid JSON: ${(error as Error).message}. Example: '{"text": "hello"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError('INVALID_ARGUMENTS', `${origin} must be a JSON object, like '{"text": "hello"}'.`);
  }
  return value as Record<string, unknown>;
}

/** Arguments of `call` are bounded: a tool call is not a file transfer. */
const MAX_ARGUMENTS_BYTES = 16 * 1024 * 1024;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ARGUMENTS_BYTES) throw new CliError('INVALID_ARGUMENTS', `The tool arguments on stdin are over ${MAX_ARGUMENTS_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readArgumentsFile(file: string): Promise<string> {
  // Read as a config file is: a FIFO named here would otherwise wait forever for a writer.
  const read = await readConfigFile(file, { maxBytes: MAX_ARGUMENTS_BYTES });
  if (read.kind === 'text') return read.text;
  if (read.kind === 'missing') throw new CliError('INVALID_ARGUMENTS', `Cannot read the tool arguments from --args-file ${file}: there is no such file.`);
  if (read.bytes !== undefined) {
    throw new CliError(
      'INVALID_ARGUMENTS',
      `--args-file ${file} is ${read.bytes.toLocaleString('en-US')} bytes; a tool's arguments may take at most ${MAX_ARGUMENTS_BYTES / 1024 / 1024} MiB: pass the tool a file's path or URL rather than its content.`,
    );
  }
  throw new CliError('INVALID_ARGUMENTS', `Cannot read the tool arguments from --args-file ${file}: it ${read.reason}.`);
}

function cliFailure(error: CliError): FailureExplanation {
  return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
}

/**
 * A failure of the command line's own (`call`'s arguments, `prompt`'s pairs), reported as the
 * server's are: a script reading `error.code` and `error.message` of load, call, read, prompts and
 * prompt gets them for these too.
 */
export function reportArgumentFailure(server: string, error: CliError, json: boolean): number {
  const explanation = cliFailure(error);
  if (json) process.stdout.write(`${terminalJson(failureJson(server, explanation))}\n`);
  else process.stderr.write(`${formatFailure(explanation)}\n`);
  return 1;
}

/** `call`: its arguments read, then the tool called. */
export async function runCall(options: GlobalOptions, server: string, tool: string, inline: string | undefined, argsFile: string | undefined, oneShot: OneShotOptions): Promise<number> {
  let args: Record<string, unknown>;
  try {
    args = await readCallArguments(inline, argsFile);
  } catch (error) {
    if (error instanceof CliError) return reportArgumentFailure(server, error, oneShot.json ?? false);
    throw error;
  }
  return runOneShot(options, 'call_mcp_tool', { server, tool, arguments: args }, oneShot);
}

/**
 * `call`'s arguments: inline JSON, `-` for stdin, or `--args-file <file>` (`-` there is stdin
 * too). Giving both an inline value and a file is an error, not a silent choice.
 */
export async function readCallArguments(inline: string | undefined, argsFile: string | undefined): Promise<Record<string, unknown>> {
  if (inline !== undefined && argsFile !== undefined) {
    throw new CliError('INVALID_ARGUMENTS', 'Give the tool arguments either inline or with --args-file, not both.');
  }
  const source = argsFile ?? inline;
  if (source === '-') {
    // Read from a terminal without a word, the command looks hung.
    if (process.stdin.isTTY) writeError('Type the tool arguments as JSON, then press Ctrl-D at the start of a line.');
    return parseJsonArguments(await readStdin(), 'The tool arguments on stdin');
  }
  if (argsFile !== undefined) return parseJsonArguments(await readArgumentsFile(argsFile), `The tool arguments in ${argsFile}`);
  return parseJsonArguments(inline);
}

/** The one request's options: Ctrl-C, `--timeout`, and for a call whose progress is shown, the time limit of a call reporting progress. */
export function oneShotRequestOptions(signal: AbortSignal, timeoutMs: number | undefined, progress: ProgressDisplay | undefined): LoaderToolCallOptions {
  return {
    signal,
    timeoutMs,
    timeoutSource: '--timeout',
    onProgress: progress && ((update) => progress.update(update)),
    // The person watches the progress: a tool still reporting is still working.
    ...(progress ? callWhileProgressing() : {}),
  };
}

import type { LoaderToolName } from '../../tools/index.js';
import { cliLogger } from '../logger.js';
import { writeError, writeListing } from '../terminal-text.js';
import { discover, isInteractive, type GlobalOptions } from '../options.js';
import { ProgressDisplay } from '../progress-display.js';
import { openLoaderSession } from '../session.js';
import { terminalApproval } from '../tool-call-approval.js';

/** The shell's code for a command ended by Ctrl-C (128 + SIGINT). */
export const INTERRUPTED_EXIT_CODE = 130;

export interface OneShotOptions {
  /** `--timeout`: milliseconds the request may take, whatever the server's config says. */
  timeoutMs?: number;
}

/**
 * `load`, `call` and `read`: one loader tool call, its text on stdout; on failure the text on
 * stderr and exit code 1. Only a tool result or resource is printed raw; everything else is
 * escaped. `call` shows the server's progress on stderr. Ctrl-C cancels the request (the server
 * is sent notifications/cancelled) and exits 130. The servers are disconnected before the
 * command returns.
 */
export async function runOneShot(
  options: GlobalOptions,
  tool: LoaderToolName,
  args: Record<string, unknown>,
  { timeoutMs }: OneShotOptions = {},
): Promise<number> {
  const logger = cliLogger(options.verbose);
  const discovery = await discover(options, logger);
  const approval = terminalApproval(options.approve, isInteractive());
  const { manager, tool: find } = openLoaderSession(discovery, options, logger, { defaults: { maxRetries: 0 } }, approval);
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  process.once('SIGINT', onInterrupt);
  const progress = tool === 'call_mcp_tool' ? new ProgressDisplay(process.stderr) : undefined;
  const callOptions = { signal: interrupt.signal, timeoutMs, onProgress: progress && ((update: Parameters<ProgressDisplay['update']>[0]) => progress.update(update)) };
  try {
    const loader = find(tool);
    if (!loader) {
      writeError(`${tool} is switched off by the permissions.`);
      return 1;
    }
    if (tool !== 'load_mcp') {
      // A one-shot command is its own whole session: it loads the server the model would have loaded first.
      const loaded = await find('load_mcp')!.execute({ server: args.server }, { signal: interrupt.signal });
      if (loaded.isError) {
        writeError(loaded.text);
        return 1;
      }
    }
    const result = await loader.execute(args, callOptions);
    progress?.finish();
    // A tool result or resource goes out as the server sent it; a manifest is a listing, and errors go to stderr.
    if (result.isError) writeError(result.text);
    else if (tool === 'load_mcp') writeListing(result.text);
    else process.stdout.write(`${result.text}\n`);
    return result.isError ? 1 : 0;
  } catch (error) {
    if (!interrupt.signal.aborted) throw error;
    progress?.finish();
    writeError('Cancelled.');
    return INTERRUPTED_EXIT_CODE;
  } finally {
    process.off('SIGINT', onInterrupt);
    await manager.dispose();
  }
}

/** The `[json-arguments]` of `call`: a JSON object, or a clear error naming what is wrong. */
export function parseJsonArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The tool arguments are not valid JSON: ${(error as Error).message}. Example: '{"text": "hello"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`The tool arguments must be a JSON object, like '{"text": "hello"}'.`);
  }
  return value as Record<string, unknown>;
}

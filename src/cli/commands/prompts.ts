/**
 * `prompts <server>` lists a server's prompts with their arguments; `prompt <server> <name>
 * [key=value…]` gets one and prints its messages. Same refusals, failure wording and `--json`
 * shape as `load`/`call`/`read`.
 */
import type { FailureExplanation } from '../failure-text.js';
import { explainFailureAsking, formatFailure } from '../failure-text.js';
import { cliLogger } from '../logger.js';
import { discoverFor, type GlobalOptions } from '../options.js';
import { oneShotDefaults, openLoaderSession } from '../session.js';
import { commandWord, terminalJson, terminalLine, writeListing } from '../terminal-text.js';
import { INVALID_PARAMS, refusal, reportArgumentFailure } from './one-shot.js';
import { endIfInterrupted, sayCancelled } from '../cancel-on-interrupt.js';
import { INTERRUPTED_EXIT_CODE } from '../exit-codes.js';
import { CliError, failureJson } from '../json-codes.js';
import { listNames } from '../../tools/list-names.js';
import { McpServerError } from '../../../machines/errors.js';

export interface PromptOptions {
  json?: boolean;
  timeout?: number;
}

type Outcome = { ok: true; text: string; data: Record<string, unknown> } | { ok: false; error: FailureExplanation };

/** `name=Ada` pairs; anything else is refused in words. */
export function promptArguments(pairs: string[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    // A Japanese or Chinese input method types the full-width ＝ (U+FF1D) by default. It is pointed
    // at, not taken as `=`: `=` stays the one separator, so a command line means the same wherever it runs.
    const fullWidth = at < 0 && pair.indexOf('\uff1d') > 0 ? ' (its "＝" is the full-width sign U+FF1D: type "=" instead)' : '';
    if (at <= 0) throw new CliError('INVALID_ARGUMENTS', `Prompt arguments are written name=value, e.g. name=Ada; got "${terminalLine(pair)}"${fullWidth}.`);
    args[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return args;
}

/** Words a failure for a person, with the server's entry at hand. */
type Explain = (error: unknown) => Promise<FailureExplanation>;

/**
 * `--timeout` is one limit for the whole command: the server's start and listing, then the
 * prompt request in what is left (`signal`, which Ctrl-C ends too), so a slow start leaves the request less time
 * rather than the total reaching twice the limit.
 */
async function withServer(
  global: GlobalOptions,
  server: string,
  options: PromptOptions,
  work: (session: ReturnType<typeof openLoaderSession>, explain: Explain, signal: AbortSignal) => Promise<Outcome>,
): Promise<number> {
  const logger = cliLogger(global.verbose);
  const discovery = await endIfInterrupted(discoverFor([server], global, logger), options.json ?? false, server);
  const report = (outcome: Outcome): number => {
    if (options.json) process.stdout.write(`${terminalJson(outcome.ok ? { ok: true, server, ...outcome.data } : failureJson(server, outcome.error))}\n`);
    else if (outcome.ok) writeListing(outcome.text);
    else process.stderr.write(`${formatFailure(outcome.error)}\n`);
    return outcome.ok ? 0 : 1;
  };
  const explain: Explain = (error) => explainFailureAsking(server, error, discovery.servers[server]);
  const cancelled = (): number => {
    sayCancelled(options.json ?? false, server);
    return INTERRUPTED_EXIT_CODE;
  };
  const refused = refusal(discovery, global, server, undefined);
  if (refused) return report({ ok: false, error: refused });
  const session = openLoaderSession(discovery, global, logger, { defaults: oneShotDefaults(options.timeout) });
  const deadline = options.timeout === undefined ? undefined : AbortSignal.timeout(options.timeout);
  // Ctrl-C ends the command as it ends `call`: "Cancelled.", with --json its one object, then 130.
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  process.once('SIGINT', onInterrupt);
  const signal = deadline ? AbortSignal.any([interrupt.signal, deadline]) : interrupt.signal;
  try {
    const loaded = await session.tool('load_mcp')!.execute({ server }, { signal });
    if (interrupt.signal.aborted) return cancelled();
    if (loaded.isError) {
      const error = loaded.error === undefined ? { message: loaded.text } : await explain(loaded.error);
      return report({ ok: false, error });
    }
    const outcome = await work(session, explain, signal);
    return interrupt.signal.aborted ? cancelled() : report(outcome);
  } catch (error) {
    if (interrupt.signal.aborted) return cancelled();
    if (deadline?.aborted && error instanceof Error && error.name === 'AbortError') {
      return report({
        ok: false,
        error: { code: 'TIMEOUT', message: `"${server}" did not answer after ${options.timeout} ms (--timeout, starting the server included)`, hint: 'give it more time with --timeout <ms>' },
      });
    }
    return report({ ok: false, error: await explain(error) });
  } finally {
    process.off('SIGINT', onInterrupt);
    await session.manager.dispose();
  }
}

export function runPrompts(global: GlobalOptions, server: string, options: PromptOptions): Promise<number> {
  return withServer(global, server, options, async ({ manager }) => {
    const prompts = manager.getManifest(server)?.prompts ?? [];
    const lines = [prompts.length === 0 ? `"${server}" offers no prompts.` : `"${server}" offers ${prompts.length === 1 ? '1 prompt' : `${prompts.length} prompts`}:`];
    for (const prompt of prompts) {
      const args = (prompt.arguments ?? []).map((argument) => (argument.required ? argument.name : `[${argument.name}]`));
      lines.push(`  ${[prompt.name, ...args.map((name) => `${name}=…`)].join(' ')}${prompt.description ? `  ${prompt.description.split('\n', 1)[0]}` : ''}`);
    }
    if (prompts.length > 0) lines.push(`Get one with \`mcp-statechart prompt ${commandWord(server)} ${commandWord(prompts[0]!.name)}${(prompts[0]!.arguments ?? []).filter((a) => a.required).map((a) => ` ${commandWord(`${a.name}=`)}…`).join('')}\`.`);
    return { ok: true, text: lines.map(terminalLine).join('\n'), data: { prompts } };
  });
}

/** An embedded blob is named with its type and size, as `call` and `read` name one, not left out without a word. */
function blobNote(resource: { blob?: string; mimeType?: string } | undefined): string {
  if (typeof resource?.blob !== 'string') return '';
  return `: ${resource.mimeType ? terminalLine(resource.mimeType) : 'unknown type'}, ${Buffer.byteLength(resource.blob, 'base64')} bytes, not shown; --json has it whole`;
}

export async function runPrompt(global: GlobalOptions, server: string, name: string, pairs: string[], options: PromptOptions): Promise<number> {
  let args: Record<string, string>;
  try {
    args = promptArguments(pairs);
  } catch (error) {
    if (error instanceof CliError) return reportArgumentFailure(server, error, options.json ?? false);
    throw error;
  }
  return withServer(global, server, options, async ({ manager }, explain, signal) => {
    // A misspelt optional argument (`stat=CA`) would be dropped without a word: the server ignores what it does not declare.
    const listed = manager.getManifest(server)?.prompts.find((prompt) => prompt.name === name);
    const declared = listed && (listed.arguments ?? []);
    const undeclared = declared ? Object.keys(args).filter((key) => !declared.some((argument) => argument.name === key)) : [];
    if (declared && undeclared.length > 0) {
      const takes = declared.length === 0 ? 'takes no arguments' : `takes ${listNames(declared.map((argument) => argument.name), undefined, { forPerson: true })}`;
      return {
        ok: false,
        error: {
          code: 'INVALID_ARGUMENTS',
          message: `prompt "${terminalLine(name)}" of "${terminalLine(server)}" has no argument ${listNames(undeclared, undefined, { forPerson: true })}; it ${takes}`,
          hint: `\`mcp-statechart prompts ${commandWord(server)}\` shows the arguments of each prompt`,
        },
      };
    }
    let result: Awaited<ReturnType<typeof manager.getPrompt>>;
    try {
      result = await manager.getPrompt(server, name, args, { signal, timeoutMs: options.timeout, timeoutSource: '--timeout' });
    } catch (error) {
      // Out of time is out of time, whether or not the server lists the prompt: the advice is --timeout. Ctrl-C is Ctrl-C.
      if (signal.aborted || (error instanceof McpServerError && error.code === 'TIMEOUT')) throw error;
      // The server's own words for a name it lacks (often "Method not found") do not say what to do.
      const offered = (manager.getManifest(server)?.prompts ?? []).map((prompt) => prompt.name);
      if (offered.includes(name) && INVALID_PARAMS.test((error as Error).message)) {
        return { ok: false, error: { ...(await explain(error)), hint: `\`mcp-statechart prompts ${commandWord(server)}\` shows the arguments of ${name}; give them as name=value` } };
      }
      if (offered.includes(name)) throw error;
      const hint = offered.length === 0 ? `"${server}" offers no prompts` : `"${server}" offers ${listNames(offered, undefined, { forPerson: true })}; \`mcp-statechart prompts ${commandWord(server)}\` shows their arguments`;
      return { ok: false, error: { ...(await explain(error)), hint } };
    }
    const lines: string[] = [];
    if (result.description) lines.push(terminalLine(result.description), '');
    for (const message of result.messages) {
      const content = message.content as { type: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string; blob?: string; mimeType?: string } };
      if (content.type === 'text') lines.push(`[${message.role}] ${content.text ?? ''}`);
      else if (content.type === 'resource') lines.push(`[${message.role}] (resource ${terminalLine(content.resource?.uri ?? '')}${blobNote(content.resource)})${content.resource?.text ? `\n${content.resource.text}` : ''}`);
      else lines.push(`[${message.role}] (${terminalLine(content.type)}${content.mimeType ? `, ${terminalLine(content.mimeType)}` : ''}; --json has it whole)`);
    }
    return { ok: true, text: lines.join('\n'), data: { prompt: name, ...result } };
  });
}

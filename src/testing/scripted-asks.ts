/**
 * The input requests a scripted server makes of the host (elicitation, sampling, roots),
 * answered by the handlers a test gives the scripted registry: the same handlers, with the same
 * parameters and context, that answer a real server's requests in either protocol era.
 */
import { quoted } from '../../machines/control-characters.js';
import type { CreateMessageRequest, ElicitRequest, ElicitResult, Root } from '@modelcontextprotocol/client';
import { McpServerError } from '../../machines/errors.js';
import type { McpProgress } from '../../machines/types.js';
import type { McpHostHandlers, SamplingAnswer } from '../connection/host-handlers.js';

/** A progress note of a scripted answer, `afterMs` (system clock) after the request began. */
export interface ScriptedProgress extends McpProgress {
  afterMs?: number;
}

/** One input request a scripted server makes before it answers. */
export type ScriptedAsk = { elicitation: ElicitRequest['params'] } | { sampling: CreateMessageRequest['params'] } | { roots: true };

/** The host's answer to one `ScriptedAsk`, in the same order. */
export type ScriptedAnswer = { elicitation: ElicitResult } | { sampling: SamplingAnswer } | { roots: Root[] };

/** Rounds of asking per request: what a real server gets before its request fails. */
export const MAX_ASK_ROUNDS = 8;

/** `what`: the request as the error quotes it (its secrets redacted). */
export function unscriptedRounds(name: string, what: string): McpServerError {
  return new McpServerError('REQUEST_FAILED', name, `MCP server ${quoted(name)}: ${what} asked the host more than ${MAX_ASK_ROUNDS} rounds.`);
}

function missingHandler(name: string, kind: string): McpServerError {
  return new McpServerError('REQUEST_FAILED', name, `MCP server ${quoted(name)} asked for ${kind}, but the scripted registry was given no ${kind} handler.`);
}

/** Asks each in turn; a handler that is missing or throws fails the request, as the server's own error would. */
export async function askHost(
  name: string,
  asks: readonly ScriptedAsk[],
  handlers: Pick<McpHostHandlers, 'elicitation' | 'sampling' | 'roots'>,
  signal: AbortSignal | undefined,
): Promise<ScriptedAnswer[]> {
  const context = { server: name, signal: signal ?? new AbortController().signal };
  const answers: ScriptedAnswer[] = [];
  for (const ask of asks) {
    if ('elicitation' in ask) {
      if (!handlers.elicitation) throw missingHandler(name, 'elicitation');
      answers.push({ elicitation: await handlers.elicitation(ask.elicitation, context) });
    } else if ('sampling' in ask) {
      if (!handlers.sampling) throw missingHandler(name, 'sampling');
      answers.push({ sampling: await handlers.sampling(ask.sampling, context) });
    } else {
      const roots = handlers.roots;
      if (roots === undefined) throw missingHandler(name, 'roots');
      answers.push({ roots: typeof roots === 'function' ? await roots(context) : [...roots] });
    }
  }
  return answers;
}

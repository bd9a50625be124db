/**
 * Approval of tool calls from the command line: what a person is shown, and asking on the
 * terminal. Without `--approve`, calls of tools not marked read-only are asked about when
 * someone is there to answer (a terminal), and run as before when nobody is.
 */
import { createInterface } from 'node:readline/promises';
import type { ApprovalDecision, ApprovalOptions, ApprovalPolicy, ToolCallApprovalRequest } from '../tools/index.js';
import { sliceWithinBudget } from '../text-limits.js';
import { terminalLine } from './terminal-text.js';

/** The arguments are shown up to this many characters. */
const MAX_SHOWN_ARGUMENTS = 2_000;

function hints(request: ToolCallApprovalRequest): string {
  const { readOnlyHint, destructiveHint, openWorldHint } = request.annotations ?? {};
  if (readOnlyHint === true) return 'read-only';
  const said = [destructiveHint === false ? 'not destructive' : 'may change or delete data', openWorldHint === false ? 'closed world' : 'may reach outside systems'];
  return request.annotations ? said.join(', ') : `${said.join(', ')} (not annotated)`;
}

/** Server, tool, what its annotations say, and the arguments as JSON; control characters escaped. */
export function describeToolCall(request: ToolCallApprovalRequest): string {
  const json = JSON.stringify(request.arguments);
  const args = json.length > MAX_SHOWN_ARGUMENTS ? `${sliceWithinBudget(json, MAX_SHOWN_ARGUMENTS)}… (${json.length - MAX_SHOWN_ARGUMENTS} more characters)` : json;
  const title = request.annotations?.title ? ` (${request.annotations.title})` : '';
  return [
    `server: ${terminalLine(request.server)}`,
    `tool: ${terminalLine(request.tool)}${terminalLine(title)}: ${hints(request)}`,
    `arguments: ${terminalLine(args)}`,
  ].join('\n');
}

async function askOnTerminal(request: ToolCallApprovalRequest, { signal }: { signal?: AbortSignal }): Promise<ApprovalDecision> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`Run this MCP tool call?\n${describeToolCall(request)}\n[y]es / [a]lways this session / [N]o: `, {
      signal,
    });
    if (/^a(lways)?$/i.test(answer.trim())) return 'allow-always';
    return /^y(es)?$/i.test(answer.trim()) ? 'allow' : 'deny';
  } finally {
    prompt.close();
  }
}

/** `policy` from `--approve`; without it, `destructive` on a terminal and `never` elsewhere. */
export function terminalApproval(policy: ApprovalPolicy | undefined, interactive: boolean): ApprovalOptions {
  return {
    approvalPolicy: policy ?? (interactive ? 'destructive' : 'never'),
    approveToolCall: interactive ? askOnTerminal : undefined,
  };
}

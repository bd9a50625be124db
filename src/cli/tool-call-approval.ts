/**
 * Approval of tool calls from the command line: what a person is shown, and asking on the
 * terminal. Without `--approve`, calls of tools not marked read-only are asked about when
 * someone is there to answer (a terminal), and run as before when nobody is.
 */
import type { ApprovalDecision, ApprovalOptions, ApprovalPolicy, ToolCallApprovalRequest } from '../tools/index.js';
import { quoted, terminalLineWithin } from '../../machines/control-characters.js';
import { argumentsForApproval } from '../tools/approval-form.js';
import { askOnTerminal } from './terminal-question.js';
import { terminalLine } from './terminal-text.js';

/** What the server's annotations claim about the tool: a server may claim anything, so the form says who says it. */
function hints(request: ToolCallApprovalRequest): string {
  const { readOnlyHint, destructiveHint, openWorldHint } = request.annotations ?? {};
  if (readOnlyHint === true) return 'the server says: read-only';
  const said = [destructiveHint === false ? 'not destructive' : 'may change or delete data', openWorldHint === false ? 'closed world' : 'may reach outside systems'];
  return request.annotations ? `the server says: ${said.join(', ')}` : `not annotated, so taken as: ${said.join(', ')}`;
}

/**
 * The most of a tool's or an argument's name the form shows, escaped. The server declares the
 * names (and the model fills in what it declares): one of 10,000 characters would push the values
 * out of view.
 */
const MAX_SHOWN_NAME = 80;
/** The most names of keys outside the schema the form lists: the model may send thousands. */
const MAX_UNKNOWN_KEYS = 20;

function nameShown(name: string): string {
  const shown = terminalLine(name);
  if (shown.length <= MAX_SHOWN_NAME) return shown;
  return `${terminalLineWithin(name, MAX_SHOWN_NAME - 1)}… (a name of ${name.length.toLocaleString('en-US')} characters)`;
}

function unknownKeysShown(keys: string[]): string {
  const shown = keys.slice(0, MAX_UNKNOWN_KEYS).map(nameShown).join(', ');
  return keys.length > MAX_UNKNOWN_KEYS ? `${shown} and ${(keys.length - MAX_UNKNOWN_KEYS).toLocaleString('en-US')} more` : shown;
}

/**
 * Server, tool, what its annotations claim, and the arguments the server acts on, one per line
 * in the schema's order, each with its length; keys outside the schema by name. Control
 * characters escaped, long names cut.
 */
export function describeToolCall(request: ToolCallApprovalRequest): string {
  const { shown, unknown } = argumentsForApproval(request.arguments, request.inputSchema);
  // The server writes the title, above the arguments: cut as a name, it cannot push them out of view.
  const title = request.annotations?.title ? ` (${quoted(request.annotations.title)})` : '';
  const lines = [`server: ${terminalLine(request.server)}`, `tool: ${nameShown(request.tool)}${title}: ${hints(request)}`];
  lines.push(shown.length === 0 ? 'arguments: none' : 'arguments:');
  for (const { key, json, length, cut } of shown) {
    const size = cut ? `${length} characters, cut` : `${length} characters`;
    lines.push(`  ${nameShown(key)} (${size}): ${terminalLine(json)}${cut ? '…' : ''}`);
  }
  if (unknown.length > 0) lines.push(`not in the tool's schema (the server ignores them; values not shown): ${unknownKeysShown(unknown)}`);
  return lines.join('\n');
}

async function askAboutCall(request: ToolCallApprovalRequest, { signal }: { signal?: AbortSignal }): Promise<ApprovalDecision> {
  const answer = (await askOnTerminal(`Run this MCP tool call?\n${describeToolCall(request)}\n[y]es / [a]lways this session / [N]o: `, signal)).trim();
  if (/^a(lways)?$/i.test(answer)) return 'allow-always';
  return /^y(es)?$/i.test(answer) ? 'allow' : 'deny';
}

/** `policy` from `--approve`; without it, `destructive` on a terminal and `never` elsewhere. */
export function terminalApproval(policy: ApprovalPolicy | undefined, interactive: boolean): ApprovalOptions {
  return {
    approvalPolicy: policy ?? (interactive ? 'destructive' : 'never'),
    approveToolCall: interactive ? askAboutCall : undefined,
    unaskedReason: 'there is no terminal to ask on (run the command on a terminal, or choose another --approve policy)',
  };
}

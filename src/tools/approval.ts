/**
 * Approval before a tool call: which calls need one (the policy, read from the tool's
 * annotations), asking the caller's `approveToolCall`, and remembering "allow always" for the
 * session. A call that is not approved comes back to the model as a refusal it can explain.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/client';
import { jsonEqual } from '../../machines/json-fingerprint.js';
import { argumentsForApproval } from './approval-form.js';
import { errorText, quoted } from './model-text.js';
import { untilAborted } from './until-aborted.js';

/**
 * `never`: no call is asked about. `destructive`: calls of tools not marked `readOnlyHint: true`
 * are (MCP takes an unannotated tool as destructive and open-world). `always`: every call is.
 */
export type ApprovalPolicy = 'never' | 'destructive' | 'always';
export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ['never', 'destructive', 'always'];

/**
 * `allow-always`: this tool of this server runs without asking for the rest of the session, as long
 * as the server lists it as it was when allowed (a changed definition is asked about again).
 * `unasked`: no one could be asked (say why in `ApprovalOptions.unaskedReason`); the call is refused.
 */
export type ApprovalDecision = 'allow' | 'deny' | 'allow-always' | 'unasked';

export interface ToolCallApprovalRequest {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** The tool's annotations as the server declared them (`title`, `readOnlyHint`, `destructiveHint`, …): claims, not facts. */
  annotations?: ToolAnnotations;
  /** The tool's input schema as the server listed it: which arguments it acts on (see approval-form.ts). */
  inputSchema?: Tool['inputSchema'];
}

/**
 * `signal` aborts when the call itself is cancelled: stop asking then. A promise only, not
 * `ApprovalDecision | Promise<ApprovalDecision>`: against that union TypeScript widens the one
 * literal of `async () => 'allow'` to `string` and refuses it (test/approval-types.test.ts).
 */
export type ApproveToolCall = (request: ToolCallApprovalRequest, options: { signal?: AbortSignal }) => Promise<ApprovalDecision>;

export interface ApprovalOptions {
  /** Default `never`; `destructive` when only `approveToolCall` is given. */
  approvalPolicy?: ApprovalPolicy;
  /** Asked before each call the policy names. Without it, such calls are refused: nobody can approve them. */
  approveToolCall?: ApproveToolCall;
  /**
   * Why no one can be asked when `approveToolCall` is missing or answers `unasked`, and what the
   * person can change: the model is told this, to pass it on.
   */
  unaskedReason?: string;
}

/**
 * @example
 * ```ts
 * import { needsApproval } from 'mcp-statechart';
 *
 * needsApproval('destructive', { destructiveHint: true }); // true: ask before calling it
 * needsApproval('destructive', { readOnlyHint: true }); // false
 * ```
 */
export function needsApproval(policy: ApprovalPolicy, annotations: ToolAnnotations | undefined): boolean {
  if (policy === 'always') return true;
  return policy === 'destructive' && annotations?.readOnlyHint !== true;
}

function refusalText(server: string, tool: string, why: string): string {
  return (
    `The call of tool ${quoted(tool)} on MCP server ${quoted(server)} did not run: ${why}. Do not call it again on your own; ` +
    `tell the user what you wanted it to do, and go on without it unless they approve.`
  );
}

// Nobody said no: the size stopped the form, so a call the form can show may still be asked about.
function tooLongToAskText(server: string, tool: string, why: string): string {
  return (
    `The call of tool ${quoted(tool)} on MCP server ${quoted(server)} did not run: ${why}. No one was asked, so this is not a refusal: ` +
    `call it again with arguments short enough to be shown whole (split the work into smaller calls), or tell the user why it cannot be done in one call.`
  );
}

/** One per set of loader tools: its "allow always" answers last as long as the tools. */
export class ToolCallApprover {
  readonly policy: ApprovalPolicy;
  /**
   * The definitions allowed always, by server and tool name: no key string is built to look a call
   * up (every call of an asked-about tool does). A server may re-list a tool the person allowed with
   * other arguments, description or annotations (a rug pull): that is not what they allowed.
   */
  private readonly allowedAlways = new Map<string, Map<string, Tool>>();

  constructor(private readonly options: ApprovalOptions = {}) {
    this.policy = options.approvalPolicy ?? (options.approveToolCall ? 'destructive' : 'never');
  }

  /**
   * Whether a call of this tool, as the server lists it now, is asked about (else `refusal` is
   * always undefined): the policy names it, and no "allow always" covers this definition.
   */
  asks(server: string, definition: Tool): boolean {
    return needsApproval(this.policy, definition.annotations) && !this.allowedAsListed(server, definition);
  }

  /** Undefined when the call may run; otherwise the refusal text for the model. */
  async refusal(request: ToolCallApprovalRequest, definition: Tool, signal?: AbortSignal): Promise<string | undefined> {
    if (!this.asks(request.server, definition)) return undefined;
    const ask = this.options.approveToolCall;
    if (!ask) return this.unasked(request);
    const { notWhole } = argumentsForApproval(request.arguments, request.inputSchema);
    if (notWhole !== undefined) {
      return tooLongToAskText(request.server, request.tool, `it needs approval (policy "${this.policy}") and it cannot be shown whole on an approval form: ${notWhole}`);
    }
    let decision: ApprovalDecision;
    try {
      // An approver that does not listen to its signal would otherwise hold a cancelled call until the person answers.
      decision = await untilAborted(ask(request, { signal }), signal, request.server, `asking for approval to call tool ${quoted(request.tool)}`);
    } catch (error) {
      if (signal?.aborted) throw error;
      return refusalText(request.server, request.tool, `asking for approval failed (${errorText(error, request.server)})`);
    }
    if (decision === 'unasked') return this.unasked(request);
    if (decision === 'allow-always') this.allowAlways(request.server, definition);
    return decision === 'allow' || decision === 'allow-always' ? undefined : refusalText(request.server, request.tool, 'the user declined it');
  }

  /** Nobody said no: say that nobody was asked, why, and that the policy is what refuses. */
  private unasked(request: ToolCallApprovalRequest): string {
    const why = this.options.unaskedReason ?? 'no approveToolCall callback is set';
    return refusalText(
      request.server,
      request.tool,
      `it needs approval (policy "${this.policy}") and no one could be asked: ${why}. The policy refuses calls it cannot ask about`,
    );
  }

  private allowAlways(server: string, definition: Tool): void {
    const tools = this.allowedAlways.get(server);
    if (tools) tools.set(definition.name, definition);
    else this.allowedAlways.set(server, new Map([[definition.name, definition]]));
  }

  /**
   * A tool listed again unchanged is the same object (manifest.ts keeps it), so the usual call
   * compares identities; a reconnect lists equal copies, compared once and then kept.
   */
  private allowedAsListed(server: string, definition: Tool): boolean {
    const tools = this.allowedAlways.get(server);
    const allowed = tools?.get(definition.name);
    if (allowed === undefined || allowed === definition) return allowed !== undefined;
    if (!jsonEqual(allowed, definition)) return false;
    tools!.set(definition.name, definition);
    return true;
  }
}

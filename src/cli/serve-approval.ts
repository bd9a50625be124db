/**
 * `serve` asks its host's user before a tool call, through MCP elicitation: a confirmation form
 * naming the server, the tool and the arguments. A host that does not declare elicitation
 * cannot be asked: without `--approve` the calls run as before; with it, the calls the policy
 * names are refused, and the model is told that nobody was asked.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import type { HostPeer } from '../serve/host.js';
import type { ApprovalDecision, ApprovalOptions, ApprovalPolicy, ToolCallApprovalRequest } from '../tools/index.js';
import { SERVE_APPROVAL_TITLE } from '../serve/host-requests.js';
import { describeToolCall } from './tool-call-approval.js';
import { terminalLine } from '../../machines/control-characters.js';

/** A person may take a while to read the form: the SDK's 60 s default would refuse while they read. */
export const APPROVAL_TIMEOUT_MS = 10 * 60_000;

async function askHost(
  host: HostPeer,
  request: ToolCallApprovalRequest,
  signal: AbortSignal | undefined,
  refuseWhenUnasked: boolean,
  remembers: boolean,
): Promise<ApprovalDecision> {
  if (!host.getClientCapabilities()?.elicitation) return refuseWhenUnasked ? 'unasked' : 'allow';
  const answer = await host.elicitInput({
    mode: 'form',
    message: `${SERVE_APPROVAL_TITLE}\n${describeToolCall(request)}`,
    requestedSchema: {
      type: 'object',
      properties: remembers
        ? {
            always: {
              type: 'boolean',
              title: `Allow ${terminalLine(`${request.server}/${request.tool}`)} without asking again this session`,
              default: false,
            },
          }
        : {},
    },
  }, { signal, timeout: APPROVAL_TIMEOUT_MS }).catch((error: unknown) => {
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) throw new Error('no answer came within 10 minutes');
    throw error;
  });
  if (answer.action !== 'accept') return 'deny';
  return remembers && answer.content?.always === true ? 'allow-always' : 'allow';
}

/**
 * `policy` from `--approve`; without it, `destructive` when the host can be asked. `remembers`:
 * the form offers "allow without asking again" (not over HTTP, where tools are shared by the
 * callers of one policy and no session holds the answer). `gateway`: serve --http, whose callers' users
 * cannot change serve's flags, so the refusal sends them to its operator.
 */
export function hostApproval(
  host: HostPeer,
  policy: ApprovalPolicy | undefined,
  { remembers = true, gateway = false }: { remembers?: boolean; gateway?: boolean } = {},
): ApprovalOptions {
  return {
    approvalPolicy: policy ?? 'destructive',
    approveToolCall: (request, { signal }) => askHost(host, request, signal, policy !== undefined, remembers),
    unaskedReason: gateway ? UNASKED_ON_HTTP : UNASKED_ON_STDIO,
  };
}

const UNASKED_ON_STDIO =
  'the MCP host running mcp-statechart serve cannot show an approval form (it does not declare MCP elicitation). ' +
  'The user can approve such calls in a host that supports elicitation, or start serve with another --approve policy';
// Over HTTP the host's user did not start serve and cannot change its flags: the policy is the gateway operator's
// (serve's --approve, or the identity's "approve" in the gateway file, the strictest of the two).
const UNASKED_ON_HTTP =
  'the MCP host calling the mcp-statechart gateway cannot show an approval form (it does not declare MCP elicitation). ' +
  'The user can approve such calls in a host that supports elicitation, or ask the gateway\'s operator for another approval ' +
  'policy (serve --http\'s --approve, or the "approve" of their identity in the gateway file)';

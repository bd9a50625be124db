/**
 * A call whose caller shows its progress (`serve` relaying a host's progressToken, the CLI's
 * `call`) restarts its time limit on each report, as the MCP spec lets a client do, but runs an
 * hour at most in all, so a server that reports forever cannot hold it open forever: the options
 * each builds carry that cap, and a call cut by it says which limit it ran past.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { CallToolRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { McpServerError } from '../machines/errors.js';
import { oneShotRequestOptions } from '../src/cli/commands/one-shot.js';
import { ProgressDisplay } from '../src/cli/progress-display.js';
import { withTimeLimit } from '../src/connection/time-limit-text.js';
import { relayedCallOptions } from '../src/serve/proxy.js';
import type { LoaderToolCallOptions } from '../src/tools/index.js';

const ONE_HOUR_MS = 60 * 60 * 1000;

/** The TIMEOUT a call gets when the SDK stops it at its total cap, in the words the caller reads. */
function cutAtTheCap(options: LoaderToolCallOptions): string {
  const answer = new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: options.maxTotalTimeoutMs, totalElapsed: ONE_HOUR_MS });
  const error = new McpServerError('TIMEOUT', 'notes', 'MCP server "notes" failed calling tool "research": Maximum total timeout exceeded');
  return withTimeLimit(error, answer, 60_000, options, 'the default').message;
}

function hostCall(meta?: CallToolRequest['params']['_meta']): CallToolRequest {
  return { method: 'tools/call', params: { name: 'call_mcp_tool', arguments: { server: 'notes', tool: 'research' }, ...(meta ? { _meta: meta } : {}) } };
}

const hostRequest = { mcpReq: { signal: new AbortController().signal, notify: () => Promise.resolve() } };

describe('serve, for a host that sent a progressToken', () => {
  it('restarts the limit on progress, up to an hour in all, and a call cut there says so', () => {
    const options = relayedCallOptions(hostCall({ progressToken: 'host-1' }), hostRequest);

    expect(options).toMatchObject({ resetTimeoutOnProgress: true, maxTotalTimeoutMs: ONE_HOUR_MS });
    expect(cutAtTheCap(options)).toBe(
      'MCP server "notes" failed calling tool "research": Maximum total timeout exceeded (3600000 ms in all, the most a call reporting progress may run)',
    );
  });

  it('keeps the server’s own limit for a host that asked for no progress', () => {
    const options = relayedCallOptions(hostCall(), hostRequest);

    expect(options.resetTimeoutOnProgress).toBeUndefined();
    expect(options.maxTotalTimeoutMs).toBeUndefined();
  });
});

describe('call, whose progress the person watches', () => {
  it('restarts the limit on progress, up to an hour in all, and a call cut there says so', () => {
    const options = oneShotRequestOptions(new AbortController().signal, undefined, new ProgressDisplay({ write: () => true }));

    expect(options).toMatchObject({ resetTimeoutOnProgress: true, maxTotalTimeoutMs: ONE_HOUR_MS });
    expect(cutAtTheCap(options)).toBe(
      'MCP server "notes" failed calling tool "research": Maximum total timeout exceeded (3600000 ms in all, the most a call reporting progress may run)',
    );
  });

  it('keeps --timeout as it is for load and read, which show no progress', () => {
    const options = oneShotRequestOptions(new AbortController().signal, 5_000, undefined);

    expect(options).toMatchObject({ timeoutMs: 5_000, timeoutSource: '--timeout' });
    expect(options.resetTimeoutOnProgress).toBeUndefined();
    expect(options.maxTotalTimeoutMs).toBeUndefined();
  });
});

/**
 * What a user writes for `approveToolCall` compiles as written, with no annotation: a concise
 * async arrow answering one decision, and an async function with branches. `npm run typecheck`
 * (tsconfig.json includes test/) fails on any line here that stops compiling.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { ApprovalOptions, ApproveToolCall } from 'mcp-statechart';

const approval = (options: ApprovalOptions) => options;

describe('approveToolCall', () => {
  it('takes a concise async arrow answering one decision', () => {
    approval({ approveToolCall: async () => 'allow' });
    approval({ approveToolCall: async ({ server, tool, arguments: args, annotations }, { signal }) => 'deny' });
    const allowAll: ApproveToolCall = async () => 'allow-always';
    expectTypeOf(allowAll).toBeFunction();
  });

  it('takes an async function with branches and awaits', () => {
    approval({
      approveToolCall: async (request, { signal }) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (signal?.aborted) return 'deny';
        if (request.annotations?.readOnlyHint) return 'allow';
        return request.server === 'fs' ? 'deny' : 'unasked';
      },
    });
  });

  it('refuses an answer that is not a decision', () => {
    // @ts-expect-error 'yes' is not an ApprovalDecision
    approval({ approveToolCall: async () => 'yes' });
  });
});

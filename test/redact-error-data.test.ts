/**
 * `redactError` copies an error whose message holds a secret: the copy keeps `data` (the hints
 * read it: a task's time limit), redacted the same way, and cut at a bounded depth.
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { McpServerError } from '../machines/errors.js';
import { explainFailure } from '../src/cli/failure-text.js';
import { isTaskTimeLimit, taskTimeLimitError } from '../src/connection/task-time-limit.js';
import { DATA_TOO_DEEP, MAX_DATA_DEPTH, REDACTED, redactError } from '../src/redact.js';

const SECRET = 'sk-live-0123456789abcdef';

describe('redactError keeps data, redacted', () => {
  it('a task time limit whose message holds a secret keeps its hint, and no secret is left', () => {
    const limit = taskTimeLimitError(`the task for tool "${SECRET}" was still working after 50 ms`, true);
    const clean = redactError(limit, [SECRET]);
    expect(clean).not.toBe(limit);
    expect(clean.message).not.toContain(SECRET);
    expect(isTaskTimeLimit(clean)).toBe(true);
    const failure = new McpServerError('TIMEOUT', 'slow', `MCP server "slow" failed calling a tool: ${clean.message}`, { cause: clean });
    expect(explainFailure('slow', failure).hint).toMatch(/^the task was still working at the time limit/);
  });

  it('a secret only in data is redacted there, in values and keys, at any depth up to the bound', () => {
    const data = { hint: `use ${SECRET}`, list: [1, { [SECRET]: true }], nested: { deeper: { token: SECRET } } };
    const answer = new ProtocolError(-32603, 'the server failed', data);
    const clean = redactError(answer, [SECRET]) as Error & { data?: unknown; code?: unknown };
    expect(clean).not.toBe(answer);
    expect(clean.code).toBe(-32603);
    expect(clean.data).toEqual({ hint: `use ${REDACTED}`, list: [1, { [REDACTED]: true }], nested: { deeper: { token: REDACTED } } });
    expect(JSON.stringify(clean.data)).not.toContain(SECRET);
    // The original stays as it was: redaction copies.
    expect(answer.data).toBe(data);
  });

  it('data without a secret leaves the error as it is', () => {
    const answer = new ProtocolError(-32603, 'the server failed', { hint: 'nothing here' });
    expect(redactError(answer, [SECRET])).toBe(answer);
  });

  it('data nested far deeper than the bound is cut, not walked to the end (no stack overflow, no secret below)', () => {
    let deep: unknown = { token: SECRET };
    for (let level = 0; level < 20_000; level++) deep = { next: deep };
    const clean = redactError(new ProtocolError(-32603, 'the server failed', deep), [SECRET]) as Error & { data?: unknown };
    let level = 1;
    let node = clean.data as { next?: unknown };
    while (typeof node.next === 'object') {
      node = node.next as { next?: unknown };
      level++;
    }
    expect(level).toBe(MAX_DATA_DEPTH);
    expect(node.next).toBe(DATA_TOO_DEEP);
  });
});

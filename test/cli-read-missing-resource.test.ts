/**
 * `read` of a URI the server does not have: the person is told that, and which resources it has.
 * A server that answers resources/read with -32602 "Unknown resource" (a hand-written McpError,
 * no data, no "not found" in its words) used to come out as the raw "MCP error -32602" with no
 * hint. A real stdio server (test/fixtures/stdio-server.mjs) for the command; the hint's wording for
 * long or cut lists is pure logic, checked on the explanation itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { missingResourceExplanation, type ListedResources } from '../src/cli/failure-text.js';
import { runCli } from './support/cli.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));

let home: string;
let config: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-read-missing-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } } }));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const cli = (args: string[]) => runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });

const NAMED = 'it lists fixture://greeting, fixture://blob, fixture://items/{id} (template); `mcp-statechart load fx` shows them with their names';

describe('read of a URI the server answers with -32602 "Unknown resource"', () => {
  it('says the server has no such resource and names the few it lists', async () => {
    const run = await cli(['read', 'fx', 'fixture://nope']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: server "fx" has no resource "fixture://nope"\nHint: ${NAMED}\n`);
  });

  it('--json: the same message and hint for a script', async () => {
    const run = await cli(['read', 'fx', 'fixture://nope', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'REQUEST_FAILED', error: { message: 'server "fx" has no resource "fixture://nope"', hint: NAMED } });
  });
});

describe('the hint of a missing resource', () => {
  const resource = (uri: string) => ({ uri, name: uri });
  const refusal = (code: number) => new McpError(code, 'Unknown resource: x://nope');

  it('-32002 (resource not found in earlier SDKs) is a missing resource as well', () => {
    expect(missingResourceExplanation('fx', 'x://nope', refusal(-32002), undefined, { resources: [resource('x://a')], resourceTemplates: [] })).toEqual({
      code: 'REQUEST_FAILED',
      message: 'server "fx" has no resource "x://nope"',
      hint: 'it lists x://a; `mcp-statechart load fx` shows them with their names',
    });
  });

  it('a URI the server lists itself but answers is not there: said so, not "has no resource X; it lists X"', () => {
    const uri = 'file:///ドキュメント/メモ.txt';
    const refusal = new McpError(-32602, 'Resource file:///%E3%83%89%E3%82%AD%E3%83%A5%E3%83%A1%E3%83%B3%E3%83%88/%E3%83%A1%E3%83%A2.txt not found');
    expect(missingResourceExplanation('fx', uri, refusal, undefined, { resources: [resource(uri)], resourceTemplates: [] })).toEqual({
      code: 'REQUEST_FAILED',
      message: `server "fx" lists resource "${uri}" but answered that it has no such resource`,
      hint: 'the server cannot read a URI it lists (some look it up percent-encoded, as non-ASCII characters are in a URL): report it to its authors',
    });
  });

  it('any other failure is not', () => {
    expect(missingResourceExplanation('fx', 'x://nope', refusal(-32603))).toBeUndefined();
  });

  it('points at `load` when the server lists more than a few, or its list was cut', () => {
    const many: ListedResources = { resources: ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => resource(`x://${name}`)), resourceTemplates: [] };
    const cut: ListedResources = { resources: [resource('x://a')], resourceTemplates: [], omitted: { tools: 0, resources: 40, resourceTemplates: 0, prompts: 0 } };
    for (const listed of [many, cut, undefined]) {
      expect(missingResourceExplanation('fx', 'x://nope', refusal(-32602), undefined, listed)?.hint).toBe('`mcp-statechart load fx` lists its resources and resource templates');
    }
  });

  it('says so when the server lists none', () => {
    expect(missingResourceExplanation('fx', 'x://nope', refusal(-32602), undefined, { resources: [], resourceTemplates: [] })?.hint).toBe('it lists no resources or resource templates');
  });
});

/**
 * `serve --exposure eager` while a server's tools change: the definitions the host holds stay the
 * same for the session, and the answer to a tool added, removed or redefined since says so and
 * what to do; a redefined tool does not run under the definition the host was shown.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManifestIndex } from '../src/index.js';
import { callAsOffered, changedSinceOffered, type OfferedDefinition, type ToolPart } from '../src/tools/unoffered-tool.js';
import { runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { answerText, startServeIn, type ServeHost } from './support/serve-host.js';

let home: string;
/** The index as seeded: each serve records what it sees, so each test starts from this again. */
let seeded: string;
const indexPath = () => join(home, '.ai-zen', 'mcp-index.json');
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-eager-changed-'));
  writeFileSync(join(home, 'indexed.json'), JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
  writeFileSync(join(home, 'with-unindexed.json'), JSON.stringify({ mcpServers: { fixture: stdioFixture(), fresh: stdioFixture('--name', 'fresh') } }));
  const indexed = await runCli(['--config', join(home, 'indexed.json'), 'index'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
  if (indexed.code !== 0) throw new Error(`index failed: ${indexed.stdout}${indexed.stderr}`);
  // The index says the fixture has a tool `gone` it does not have: as if the server removed it after it was indexed.
  const index = new ManifestIndex({ path: indexPath() });
  const { manifest } = index.entry('fixture')!;
  index.record('fixture', stdioFixture(), { ...manifest, tools: [...manifest.tools, { name: 'gone', description: 'Removed since', inputSchema: { type: 'object' } }] });
  await index.flush();
  seeded = readFileSync(indexPath(), 'utf8');
}, 60_000);
beforeEach(() => writeFileSync(indexPath(), seeded));
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function eagerServe(config: string): Promise<ServeHost> {
  const serve = startServeIn(home, ['--config', join(home, config), '--exposure', 'eager']);
  serve.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } });
  await serve.answer(1);
  serve.send({ method: 'notifications/initialized' });
  return serve;
}

async function call(serve: ServeHost, id: number, name: string, args: object = {}): Promise<string> {
  serve.send({ id, method: 'tools/call', params: { name, arguments: args } });
  return answerText(await serve.answer(id));
}

/** Calls `name` until its answer is not `first` (the server's list change is re-read in the background), at most 40 times. */
async function callUntilChanged(serve: ServeHost, firstId: number, name: string, first: string): Promise<string> {
  let text = first;
  for (let id = firstId; text === first && id < firstId + 40; id++) {
    await new Promise((done) => setTimeout(done, 100));
    text = await call(serve, id, name);
  }
  return text;
}

async function ended(serve: ServeHost): Promise<void> {
  serve.end();
  await serve.exited;
}

describe('serve --exposure eager when a server changes its tools during the session', () => {
  it('a tool the server added since is answered as added after the tools were made, offered when the host restarts serve', async () => {
    const serve = await eagerServe('indexed.json');
    try {
      const unknownBefore = await call(serve, 2, 'fixture__extra');
      expect(unknownBefore).toMatch(/^Unknown tool "fixture__extra"\. Tools: /);
      expect(await call(serve, 3, 'fixture__add_tool', { name: 'extra' })).toBe('added extra');

      const after = await callUntilChanged(serve, 10, 'fixture__extra', unknownBefore);

      expect(after).toBe(
        'Tool "fixture__extra" is not offered: MCP server "fixture" added "extra" after this session\'s tools were made, and they stay the same for the session. ' +
          'It is offered once these tools are made again: for mcp-statechart serve, when the host restarts it. Tell the user if it is needed now.',
      );
      expect(serve.messages().filter((message) => message.method === 'notifications/tools/list_changed')).toEqual([]);
    } finally {
      await ended(serve);
    }
  }, 60_000);

  it('with the loader tools beside (a server not indexed), the answer points to call_mcp_tool, which runs it', async () => {
    const serve = await eagerServe('with-unindexed.json');
    try {
      expect(await call(serve, 2, 'fixture__add_tool', { name: 'extra' })).toBe('added extra');

      const after = await callUntilChanged(serve, 10, 'fixture__extra', await call(serve, 3, 'fixture__extra'));

      expect(after).toBe(
        'Tool "fixture__extra" is not offered: MCP server "fixture" added "extra" after this session\'s tools were made, and they stay the same for the session. ' +
          'Call it with call_mcp_tool (server "fixture", tool "extra").',
      );
      expect(await call(serve, 60, 'call_mcp_tool', { server: 'fixture', tool: 'extra', arguments: { text: 'reached' } })).toBe('reached');
    } finally {
      await ended(serve);
    }
  }, 60_000);

  it('a tool the server redefines since (a rug pull) is refused, not run, saying what changed and that it is offered as it is now when the host restarts serve', async () => {
    const serve = await eagerServe('indexed.json');
    try {
      const asOffered = await call(serve, 2, 'fixture__add', { a: 1, b: 2 });
      expect(asOffered).toMatch(/^3/);
      // `add` becomes an echo of a text: other arguments, another description.
      expect(await call(serve, 3, 'fixture__add_tool', { name: 'add' })).toBe('added add');

      const after = await callUntilChanged(serve, 10, 'fixture__add', await call(serve, 4, 'fixture__add', { a: 1, b: 2 }));

      expect(after).toBe(
        'Tool "fixture__add" was not called: MCP server "fixture" changed "add" after this session\'s tools were made (what changed: its arguments and description), and the tools offered stay the same for the session. ' +
          'It is offered as it is now once these tools are made again: for mcp-statechart serve, when the host restarts it. Tell the user if it is needed now.',
      );
      // The host still holds the definition it was shown, and is not told of another.
      serve.send({ id: 60, method: 'tools/list' });
      const listed = (await serve.answer(60)).result as unknown as { tools: Array<{ name: string; description: string }> };
      expect(listed.tools.find((tool) => tool.name === 'fixture__add')?.description).toBe('Adds two numbers');
      expect(serve.messages().filter((message) => message.method === 'notifications/tools/list_changed')).toEqual([]);
    } finally {
      await ended(serve);
    }
  }, 60_000);

  it('a tool of a server not indexed when the tools were made is answered as not known then, not as added since', async () => {
    const serve = await eagerServe('with-unindexed.json');
    try {
      expect(await call(serve, 2, 'load_mcp', { server: 'fresh' })).toMatch(/echo/);

      const after = await call(serve, 3, 'fresh__echo', { text: 'direct' });

      expect(after).toBe(
        'Tool "fresh__echo" is not offered: MCP server "fresh" was neither connected nor indexed when this session\'s tools were made, so its tool "echo" was not known then, and the tools stay the same for the session. ' +
          'Call it with call_mcp_tool (server "fresh", tool "echo").',
      );
    } finally {
      await ended(serve);
    }
  }, 60_000);

  it('a redefined tool, with the loader tools beside: the answer points to load_mcp then call_mcp_tool, which run it as it is now', async () => {
    const serve = await eagerServe('with-unindexed.json');
    try {
      expect(await call(serve, 2, 'fixture__add_tool', { name: 'add' })).toBe('added add');

      const after = await callUntilChanged(serve, 10, 'fixture__add', await call(serve, 3, 'fixture__add', { a: 1, b: 2 }));

      expect(after).toBe(
        'Tool "fixture__add" was not called: MCP server "fixture" changed "add" after this session\'s tools were made (what changed: its arguments and description), and the tools offered stay the same for the session. ' +
          'Read it as it is now with load_mcp (server "fixture"), then call it with call_mcp_tool (server "fixture", tool "add").',
      );
      expect(await call(serve, 60, 'call_mcp_tool', { server: 'fixture', tool: 'add', arguments: { text: 'reached' } })).toBe('reached');
    } finally {
      await ended(serve);
    }
  }, 60_000);

  it('a tool offered that the server no longer lists is answered as removed since, with the tools it has', async () => {
    const serve = await eagerServe('indexed.json');
    try {
      serve.send({ id: 2, method: 'tools/list' });
      const listed = (await serve.answer(2)).result as unknown as { tools: Array<{ name: string }> };
      expect(listed.tools.map((tool) => tool.name)).toContain('fixture__gone');

      const answer = await call(serve, 3, 'fixture__gone');

      expect(answer).toMatch(
        /^Tool "fixture__gone" was listed when this session's tools were made, but its server has removed it since; the tools offered stay the same for the session\. MCP server "fixture" has no tool "gone"\. Its tools: .*echo/,
      );
    } finally {
      await ended(serve);
    }
  }, 60_000);
});

describe("what a refusal of a redefined tool names, and what it lets through", () => {
  const offeredTool = { name: 'search', description: 'Search notes', inputSchema: { type: 'object' as const, properties: { q: { type: 'string' } } }, annotations: { readOnlyHint: true } };

  function offeredCall() {
    const named: Array<readonly ToolPart[]> = [];
    const offered: OfferedDefinition = { definition: offeredTool, changed: (parts) => (named.push(parts), `changed: ${parts.join(', ')}`) };
    return { options: callAsOffered({}, offered), offered, named };
  }

  it('names only the annotations when only they changed, and refuses again on the next call', () => {
    const { options, named } = offeredCall();
    const destructive = { ...offeredTool, annotations: { destructiveHint: true } };
    expect(changedSinceOffered(options, destructive)).toBe('changed: annotations');
    expect(changedSinceOffered(options, destructive)).toBe('changed: annotations');
    expect(named).toEqual([['annotations'], ['annotations']]);
  });

  it('lets an equal definition listed again through, and keeps it, so the next check is identity', () => {
    const { options, offered } = offeredCall();
    const relisted = structuredClone(offeredTool);
    expect(changedSinceOffered(options, relisted)).toBeUndefined();
    expect(offered.definition).toBe(relisted);
  });

  it('lets a changed outputSchema or _meta through: a direct tool offers neither, and a result is checked against the schema as it is at the call', () => {
    const { options, named } = offeredCall();
    const reshaped = { ...offeredTool, outputSchema: { type: 'object' as const, properties: { deleted: { type: 'number' } } }, _meta: { note: 'changed' } };
    expect(changedSinceOffered(options, reshaped)).toBeUndefined();
    expect(named).toEqual([]);
  });

  it('does not apply to a call of call_mcp_tool itself: its options carry no offered definition', () => {
    expect(changedSinceOffered({}, { ...offeredTool, description: 'Deletes every file' })).toBeUndefined();
  });
});

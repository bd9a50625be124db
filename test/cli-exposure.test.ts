/**
 * `--exposure`: `servers` shows the decision and the byte counts of both choices; `serve` offers
 * the servers' own tools (server__tool) when eager, and they run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { createLoaderTools, discoverMcpServers, ManifestIndex, McpConnectionManager, silentLogger } from '../src/index.js';
import { exposureLine, formatServersTable } from '../src/cli/commands/servers.js';
import { displayWidth, wrapToWidth } from '../src/cli/display-width.js';
import { stdioFixture } from './support/fixtures.js';
import { startServeIn } from './support/serve-host.js';
import { MAX_DIRECT_DESCRIPTION_CHARACTERS } from '../src/text-limits.js';
import { expectSchemaTextsCut } from './support/long-schema-texts.js';

const HUGE_MANIFEST_SERVER = fileURLToPath(new URL('./fixtures/huge-manifest-server.mjs', import.meta.url));

let home: string;
let config: string;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-cli-exposure-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
  const indexed = await cli('index');
  if (indexed.code !== 0) throw new Error(`index failed: ${indexed.stdout}${indexed.stderr}`);
}, 60_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

function cli(...args: string[]) {
  return runCli(['--config', config, ...args], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
}

interface Report {
  exposure: { mode: string; reason: string; loaderBytes: number; directBytes: number; directTokens: number; thresholdTokens?: number };
}

describe('--exposure', () => {
  /** What the library decides over the index `index` wrote: the CLI must report the same. */
  function libraryDecision() {
    const manager = new McpConnectionManager({ logger: silentLogger });
    const servers = { fixture: stdioFixture() };
    const manifestIndex = new ManifestIndex({ path: join(home, '.ai-zen', 'mcp-index.json') });
    const decision = createLoaderTools({ manager, servers, manifestIndex }).exposure;
    return { decision, done: manager.dispose() };
  }

  it('servers --json: eager at a threshold of exactly the fixture\'s tools, with both byte counts', async () => {
    const { decision, done } = libraryDecision();
    await done;
    expect(decision.directBytes).toBeGreaterThan(decision.loaderBytes);
    const report = JSON.parse((await cli('--exposure', String(decision.directTokens), 'servers', '--json')).stdout) as Report;
    expect(report.exposure).toMatchObject({ mode: 'eager', thresholdTokens: decision.directTokens, directBytes: decision.directBytes, loaderBytes: decision.loaderBytes });
  });

  it('servers: lazy one token below, and the table says so with both byte counts', async () => {
    const { decision, done } = libraryDecision();
    await done;
    const run = await cli('--exposure', String(decision.directTokens - 1), 'servers');
    expect(run.stdout).toContain(`Exposure: lazy (the servers' tools (~${decision.directTokens} tokens) exceed ${decision.directTokens - 1} tokens).`);
    expect(run.stdout).toContain(`Loader tools ${decision.loaderBytes} bytes`);
    expect(run.stdout).toContain(`the servers' own tools ${decision.directBytes} bytes`);
  });

  it('servers: a server not indexed is said to be left out of the own tools\' count, which is then that of the indexed ones, or none', async () => {
    const { decision, done } = libraryDecision();
    await done;
    const withNew = join(home, 'with-new.json');
    writeFileSync(withNew, JSON.stringify({ mcpServers: { fixture: stdioFixture(), fresh: stdioFixture('--name', 'fresh') } }));
    const run = await runCli(['--config', withNew, 'servers'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.stdout).toContain(
      `the servers' own tools not known in full: 1 server is not indexed (\`mcp-statechart index\` records them); the indexed ones' ${decision.directBytes} bytes (~${decision.directTokens} tokens).`,
    );
    const onlyNew = join(home, 'only-new.json');
    writeFileSync(onlyNew, JSON.stringify({ mcpServers: { fresh: stdioFixture('--name', 'fresh'), other: stdioFixture('--name', 'other') } }));
    const none = await runCli(['--config', onlyNew, 'servers'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(none.stdout).toMatch(/; the servers' own tools not known in full: 2 servers are not indexed \(`mcp-statechart index` records them\)\.\n/);
  });

  it('servers: with only a project server awaiting approval, no size is given for tools none of which are known', async () => {
    const project = join(home, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { cloned: stdioFixture('--name', 'cloned') } }));

    const run = await runCli(['servers'], { cwd: project, env: { HOME: home }, timeoutMs: 30_000 });

    expect(run.stdout).toContain('awaiting approval');
    expect(run.stdout).toMatch(/; the servers' own tools: none known, so nothing is measured yet\.\n/);
    expect(run.stdout).not.toMatch(/own tools \d+ bytes/);
  });

  it('servers on a 40-column terminal: the Exposure line is broken at spaces into lines that fit, its words whole', async () => {
    const { decision, done } = libraryDecision();
    await done;
    const discovery = await discoverMcpServers({ configPaths: [config], env: {} });
    const index = new ManifestIndex({ path: join(home, '.ai-zen', 'mcp-index.json') });

    const lines = formatServersTable(discovery, index, undefined, undefined, decision, [], 40).split('\n');

    const exposure = lines.slice(lines.findIndex((line) => line.startsWith('Exposure: ')));
    expect(exposure.length).toBeGreaterThan(1);
    expect(exposure.filter((line) => displayWidth(line) > 40)).toEqual([]);
    expect(exposure.join(' ')).toBe(exposureLine(decision));
  });

  it('the Exposure line on a terminal narrower than one of its words: that word is broken too, wide characters counted as two columns', () => {
    expect(wrapToWidth('Exposure: `mcp-statechart index` 天気天気', 8)).toEqual(['Exposure', ':', '`mcp-sta', 'techart', 'index`', '天気天気']);
    expect(wrapToWidth('天気天気天気 ok', 8)).toEqual(['天気天気', '天気 ok']);
  });

  it('refuses a threshold that is not lazy, eager or a whole number', async () => {
    const run = await cli('--exposure', 'some', 'servers');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Give lazy, eager, or a positive whole number of tokens');
  });

  it('serve --exposure eager lists the fixture\'s tools as fixture__<tool> and runs them', async () => {
    const serve = startServeIn(home, ['--config', config, '--exposure', 'eager']);
    try {
      serve.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } });
      await serve.answer(1);
      serve.send({ method: 'notifications/initialized' });
      serve.send({ id: 2, method: 'tools/list' });
      const listed = (await serve.answer(2)).result as unknown as { tools: Array<{ name: string }> };
      const names = listed.tools.map((tool) => tool.name);
      expect(names).toContain('fixture__echo');
      expect(names).not.toContain('load_mcp');
      serve.send({ id: 3, method: 'tools/call', params: { name: 'fixture__add', arguments: { a: 2, b: 3 } } });
      expect((await serve.answer(3)).result?.content?.[0]?.text).toBe('5');
    } finally {
      serve.end();
      await serve.exited;
    }
  });

  it(`serve --exposure eager lists a tool whose description is a quarter megabyte with it cut to ${MAX_DIRECT_DESCRIPTION_CHARACTERS} characters, and the texts inside an input schema cut too, saying so`, async () => {
    const hugeHome = mkdtempSync(join(tmpdir(), 'mcp-cli-exposure-huge-'));
    const hugeConfig = join(hugeHome, 'mcp.json');
    writeFileSync(hugeConfig, JSON.stringify({ mcpServers: { huge: { command: process.execPath, args: [HUGE_MANIFEST_SERVER, '--mb', '0.25', '--in-schema'] } } }));
    const indexed = await runCli(['--config', hugeConfig, 'index'], { cwd: hugeHome, env: { HOME: hugeHome }, timeoutMs: 30_000 });
    expect(indexed.code).toBe(0);
    const serve = startServeIn(hugeHome, ['--config', hugeConfig, '--exposure', 'eager']);
    try {
      serve.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } });
      await serve.answer(1);
      serve.send({ method: 'notifications/initialized' });
      serve.send({ id: 2, method: 'tools/list' });
      const listed = (await serve.answer(2)).result as unknown as { tools: Array<{ name: string; description: string }> };
      const huge = listed.tools.find((tool) => tool.name === 'huge__huge')!;
      expect(huge.description.length).toBeLessThanOrEqual(MAX_DIRECT_DESCRIPTION_CHARACTERS);
      expect(huge.description).toMatch(/^description A+ \[description cut: [\d,]+ of 262,156 characters shown\]$/);
      expectSchemaTextsCut((listed.tools.find((tool) => tool.name === 'huge__configure') as unknown as { inputSchema: unknown }).inputSchema);
    } finally {
      serve.end();
      await serve.exited;
      rmSync(hugeHome, { recursive: true, force: true });
    }
  }, 60_000);
});

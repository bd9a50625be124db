/**
 * Listing a hostile server is bounded: one deadline (connectTimeoutMs) covers initialize and
 * every page of every list, a refresh after list_changed has a deadline too, and pages, entries
 * and size are capped, ending in an error that names the server. Real processes: the hostile
 * fixture server (test/fixtures/hostile-server.mjs).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { Deadline } from '../src/connection/deadline.js';
import { listAllPages, LISTING_LIMITS } from '../src/connection/manifest.js';
import { silentLogger } from '../src/logger.js';
import { descendantsAfter, textOf, waitUntil } from './support/chaos-helpers.js';
import { rejectionOf } from './support/fixtures.js';
import { hostileServer, recordingLogger, withPeakHeap } from './support/hostile.js';

const MB = 1024 * 1024;
const managers: McpConnectionManager[] = [];

function manager(logger = silentLogger) {
  const created = new McpConnectionManager({ logger });
  managers.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

describe('a server that pages forever', () => {
  it('fails the connect within connectTimeoutMs + 1 s, naming the server, with heap growth under 100 MB', async () => {
    const connectTimeoutMs = 2_000;
    // 200 tools a page: the tools cap (20,000) ends it by page 101 however fast the pages come.
    // Under the 200,000-entry cap alone a fast machine read ~100,000 tools within the 2 s and the
    // heap grew 104.5 MB (Node 24): the timeout, not a cap, was what kept it lower.
    const before = process.memoryUsage().heapUsed;
    const started = Date.now();
    const { value: error, peakHeap } = await withPeakHeap(() =>
      rejectionOf(manager().connect('pager', hostileServer('--pages-forever', '200'), { connectTimeoutMs, autoReconnect: false })),
    );
    const elapsed = Date.now() - started;

    expect(elapsed).toBeLessThan(connectTimeoutMs + 1_000);
    expect(error.message).toMatch(/Could not connect to MCP server "pager": .*(timed out|more than 20000 tools)/);
    expect(peakHeap - before).toBeLessThan(100 * MB);
  });

  it('stops a listing at the page cap even when every page comes at once', async () => {
    const deadline = new Deadline(60_000, () => new Error('late'));
    let page = 0;
    const listing = listAllPages(async () => ({ items: [{ name: `tool${page}`, inputSchema: { type: 'object' } }], nextCursor: `c${++page}` }), {
      server: 'pager',
      kind: 'tools',
      limits: { ...LISTING_LIMITS, maxPages: 50 },
      logger: silentLogger,
      deadline,
    });
    await expect(listing).rejects.toThrow(/the server listed tools over more than 50 pages/);
    deadline.dispose();
    expect(page).toBe(50);
  });
});

describe('a list whose cursor never ends', () => {
  it('of resources: keeps the first 1000 pages with a warning, and the connect succeeds with its tools usable', async () => {
    const { logger, lines } = recordingLogger();
    const mcp = manager(logger);
    const manifest = await mcp.connect('endless', hostileServer('--resource', 'doc://a', '--resource-pages-forever'), { connectTimeoutMs: 60_000 });
    expect(manifest.resources).toHaveLength(1000);
    expect(manifest.resources.at(-1)?.uri).toBe('doc://a#1000');
    expect(lines.warn).toContainEqual(
      'MCP server "endless" listed resources over more than 1000 pages, its cursor never ending; keeping the 1000 from the first 1000 pages. Its tools are usable; report the bug to the server\'s authors.',
    );
    expect(textOf(await mcp.callTool('endless', 'echo', { text: 'still usable' }))).toBe('still usable');
  }, 90_000);

  it('of tools: fails the connect, saying it is the server\'s bug to report and how to switch the server off', async () => {
    const error = await rejectionOf(manager().connect('endless', hostileServer('--pages-forever', '1'), { connectTimeoutMs: 60_000, autoReconnect: false }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'endless' });
    expect(error.message).toBe(
      'Could not connect to MCP server "endless": the server listed tools over more than 1000 pages, more than mcp-statechart accepts. Its cursor never ends, a bug of the server\'s: report it to the server\'s authors, and set "disabled": true in its entry until it is fixed; it will not be retried.',
    );
  }, 90_000);
});

describe('a list past the caps', () => {
  it(`lists ${LISTING_LIMITS.maxTools.toLocaleString('en-US')} tools, the tools cap, in one page`, async () => {
    const manifest = await manager().connect('crowd', hostileServer('--tools', String(LISTING_LIMITS.maxTools)), { connectTimeoutMs: 60_000 });
    expect(manifest.tools).toHaveLength(20_000);
    expect(manifest.tools.at(-1)?.name).toBe('t19999');
  }, 90_000);

  it.each([20_001, 200_000])('ends a list of %i tools in one page in an error that names the server and is not retried, not a stack overflow', async (count) => {
    const error = await rejectionOf(manager().connect('crowd', hostileServer('--tools', String(count)), { connectTimeoutMs: 60_000 }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'crowd' });
    expect(error.message).toMatch(/"crowd": the server listed more than 20000 tools, more than mcp-statechart accepts\. It will not be retried\./);
    expect(error.message).not.toMatch(/call stack/);
  }, 90_000);

  it('ends a list whose entry does not follow the MCP schema with an error naming the field', async () => {
    const deadline = new Deadline(60_000, () => new Error('late'));
    const listing = listAllPages(async () => ({ items: [{ name: 'fine', inputSchema: { type: 'object' } }, { name: 7 }] }), {
      server: 'odd',
      kind: 'tools',
      limits: LISTING_LIMITS,
      logger: silentLogger,
      deadline,
    });
    await expect(listing).rejects.toThrow(/MCP server "odd" listed a tool that does not follow the MCP schema \(name: .*string/);
    deadline.dispose();
  });

  it('skips a resource or prompt that does not follow the MCP schema, with a warning naming the field; the rest of the list stays', async () => {
    const { logger, lines } = recordingLogger();
    const deadline = new Deadline(60_000, () => new Error('late'));
    const resources = await listAllPages(async () => ({ items: [{ uri: 'good://1', name: 'good' }, { uri: 'bad://2' }, { uri: 'good://3', name: 'also good' }] }), {
      server: 'odd',
      kind: 'resources',
      limits: LISTING_LIMITS,
      logger,
      deadline,
    });
    deadline.dispose();
    expect(resources.map((resource) => resource.uri)).toEqual(['good://1', 'good://3']);
    expect(lines.warn).toEqual([expect.stringMatching(/^MCP server "odd": skipped 1 resource that does not follow the MCP schema \(name: .*string.*\); its other entries and its tools are usable\.$/)]);
  });

  it('ends a list past the size cap with an error', async () => {
    const deadline = new Deadline(60_000, () => new Error('late'));
    const listing = listAllPages(async () => ({ items: [{ name: 'x'.repeat(2_000) }, { name: 'y'.repeat(2_000) }] }), {
      server: 'big',
      kind: 'prompts',
      limits: { ...LISTING_LIMITS, maxChars: 3_000 },
      logger: silentLogger,
      deadline,
    });
    await expect(listing).rejects.toThrow(/the server sent more than 0 MB of prompts/);
    deadline.dispose();
  });
});

describe('a refresh after list_changed', () => {
  it('gives up after the refresh timeout with a warning (and a retry planned); the connection and its manifest stay', async () => {
    const { logger, lines } = recordingLogger();
    const mcp = manager(logger);
    // Pinned to the legacy era: the 500 ms bound is for the listing, not for an era probe as well.
    const manifest = await mcp.connect('mute', { ...hostileServer('--mute-relist'), protocol: 'legacy' }, { connectTimeoutMs: 500 });
    await mcp.callTool('mute', 'change', {});
    await waitUntil(() => lines.warn.some((line) => /reading tools again failed/.test(line)), 5_000, () => lines.warn.join('\n'));

    expect(lines.warn.join('\n')).toMatch(/"mute": reading tools again failed: .*within 500 ms.*; trying again in 1 s\./);
    expect(mcp.getState('mute')).toBe('connected');
    expect(mcp.getManifest('mute')?.tools).toEqual(manifest.tools);
    expect(textOf(await mcp.callTool('mute', 'echo', { text: 'still here' }))).toBe('still here');
  });
});

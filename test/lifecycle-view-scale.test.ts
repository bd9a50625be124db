/// <reference lib="dom" />
/**
 * The live view at scale, in Chromium at 1400×900: one compact row per server (name, a pill with
 * the real sub-state, era, requests in flight, a sparkline of calls, the attempt, the next retry,
 * tools, the last error), servers the config keeps off listed too, 50 servers on one screen, the
 * attempt the same number `mcp.stateChanged` reports, and the chart drawn only for the server
 * opened. The screenshots of 3 and 50 servers land in test-artifacts/ (committed copies:
 * visualizations/lifecycle-view-3-servers.png and lifecycle-view-50-servers.png).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig, McpStateChangedEmitted } from '../src/index.js';
import { launchChromium, type Browser } from '../scripts/chromium.js';
import { killNotesServer, startDemoServers, type DemoServers } from '../scripts/demo-servers.js';
import type { DiscoveredServer } from '../src/config/types.js';
import { silentLogger } from '../src/logger.js';
import { McpConnectionManager } from '../src/manager.js';
import { startLifecycleView, type LifecycleView } from '../src/view/lifecycle-view.js';
import { withoutChromium } from './support/chromium.js';

const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const WIDTH = 1400;
const HEIGHT = 900;
/** Long enough that a loaded machine's page still catches the notes server waiting for its retry. */
const FIRST_BACKOFF_MS = 5_000;

/** A server the config keeps off, as discovery lists it. */
const off = (name: string, why: string, trust?: DiscoveredServer['trust']): DiscoveredServer => ({
  name,
  config: { command: 'never-started' },
  transport: 'stdio',
  scope: 'project',
  source: '/project/.mcp.json',
  disabled: true,
  disabledBecause: why,
  ...(trust ? { trust } : {}),
});

let demo: DemoServers;
let browser: Browser;
let page: Page;
const managers: McpConnectionManager[] = [];
const views: LifecycleView[] = [];

async function openView(configured: Record<string, McpServerConfig>, offServers: DiscoveredServer[]) {
  const manager = new McpConnectionManager({ logger: silentLogger, defaults: { backoff: { initialDelayMs: FIRST_BACKOFF_MS } } });
  managers.push(manager);
  manager.configure(configured);
  const view = await startLifecycleView(manager, { servers: Object.fromEntries(offServers.map((server) => [server.name, server])) });
  views.push(view);
  await page.goto(view.url);
  await expect.poll(() => page.locator('#status').getAttribute('data-live')).toBe('true');
  return manager;
}

const cell = (server: string, column: string) => page.locator(`tr[data-server="${server}"] td.${column}`);

beforeAll(async () => {
  demo = await startDemoServers();
  if (withoutChromium) return;
  browser = await launchChromium();
  page = await browser.context.newPage();
  await page.setViewportSize({ width: WIDTH, height: HEIGHT });
}, 30_000);

afterAll(async () => {
  for (const view of views) await view.stop();
  for (const manager of managers) await manager.dispose();
  await browser?.close();
  await demo?.close();
});

describe.skipIf(withoutChromium)('the live view at 1400×900', () => {
  it('3 servers: a row each with the real sub-state, the attempt as the reports number it, the disabled server listed; the chart only for the one opened', { timeout: 60_000 }, async () => {
    const manager = await openView(demo.servers, [off('archive', 'disabled in /project/.mcp.json')]);
    const reported: McpStateChangedEmitted[] = [];
    manager.on('mcp.stateChanged', (event) => reported.push(event as McpStateChangedEmitted));
    await Promise.all([manager.connect('notes'), manager.connect('weather')]);
    await expect.poll(() => cell('weather', 'state').textContent()).toBe('connected.ready');
    expect(await page.locator('tr.server').count()).toBe(3);
    expect(await cell('archive', 'state').textContent()).toBe('disabled');
    expect(await cell('archive', 'error').textContent()).toBe('disabled in /project/.mcp.json');
    expect(await cell('weather', 'era').textContent()).toBe(manager.getManifest('weather')!.protocolVersion);
    expect(await page.locator('.chart svg').count()).toBe(0);

    await killNotesServer(manager);
    await expect.poll(() => cell('notes', 'state').textContent(), { timeout: FIRST_BACKOFF_MS }).toBe('error.retrying');
    const lastReport = reported.filter((event) => event.server === 'notes').at(-1)!;
    expect(lastReport.substate).toBe('error.retrying');
    // The row's attempt is the report's (before: the chart's retries so far, 0 while the report said 1).
    expect(await cell('notes', 'attempt').textContent()).toBe(String(lastReport.attempt));
    expect(lastReport.attempt).toBe(1);
    await expect.poll(() => cell('notes', 'retry').textContent()).toMatch(/^in \d+\.\d s$|^now$/);
    await expect.poll(() => cell('notes', 'error').textContent()).toContain('notes');

    await page.locator('tr[data-server="notes"]').click();
    const detail = page.locator('#detail[data-server="notes"]');
    await expect.poll(() => detail.locator('dt:text-is("attempt") + dd').textContent()).toBe(String(lastReport.attempt));
    const active = await detail.locator('.chart g.state.active').evaluateAll((groups) => groups.map((group) => (group as SVGGElement).dataset.state));
    expect(active).toEqual(expect.arrayContaining(['error', 'error.retrying']));
    expect(await page.locator('.chart svg').count()).toBe(1);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}lifecycle-view-3-servers.png` });
  });

  it('50 servers fit on one screen: every row inside the 1400×900 viewport, no scrolling', { timeout: 60_000 }, async () => {
    const idle = Object.fromEntries(Array.from({ length: 44 }, (_, index) => [`server-${String(index + 1).padStart(2, '0')}`, { command: 'never-started' }]));
    const manager = await openView({ ...demo.servers, missing: { command: '/nonexistent/mcp-server' }, ...idle }, [
      off('archive', 'disabled in /project/.mcp.json'),
      off('billing', 'a project server not approved yet: mcp-statechart approve billing', 'awaiting approval'),
      off('legacy', 'project servers are denied', 'denied'),
    ]);
    await Promise.all([manager.connect('notes'), manager.connect('weather'), manager.connect('missing').catch(() => {})]);
    await expect.poll(() => page.locator('tr.server').count()).toBe(50);
    await expect.poll(() => cell('missing', 'state').textContent()).toMatch(/^error\./);
    await expect.poll(() => cell('notes', 'state').textContent()).toBe('connected.ready');
    expect(await cell('billing', 'state').textContent()).toBe('awaiting approval');

    const boxes = await page.locator('tr.server').evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().toJSON() as DOMRect));
    for (const box of boxes) {
      expect(box.bottom).toBeLessThanOrEqual(HEIGHT);
      expect(box.right).toBeLessThanOrEqual(WIDTH);
    }
    expect(await page.evaluate(() => [document.documentElement.scrollHeight, document.documentElement.scrollWidth])).toEqual([HEIGHT, WIDTH]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}lifecycle-view-50-servers.png` });
  });
});

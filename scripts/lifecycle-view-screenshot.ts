/// <reference lib="dom" />
/**
 * The picture of the live lifecycle view in the README: the demo's servers connected, then the
 * notes server killed, taken while the view shows it waiting for its retry.
 */
import type { BrowserContext } from 'playwright-core';
import { silentLogger } from '../src/logger.js';
import { McpConnectionManager } from '../src/manager.js';
import { startLifecycleView } from '../src/view/lifecycle-view.js';
import { killNotesServer, startDemoServers } from './demo-servers.js';

export const VIEW_SCREENSHOT_WIDTH = 1400;

export async function screenshotLifecycleView(context: BrowserContext): Promise<Buffer> {
  const demo = await startDemoServers();
  const manager = new McpConnectionManager({ logger: silentLogger });
  manager.configure(demo.servers);
  const view = await startLifecycleView(manager);
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: VIEW_SCREENSHOT_WIDTH, height: 900 });
    await page.goto(view.url);
    await Promise.all([manager.connect('notes'), manager.connect('weather')]);
    await killNotesServer(manager);
    await page.waitForFunction(() => document.querySelector('tr[data-server="notes"] .pill')?.textContent === 'error.retrying', undefined, {
      timeout: 10_000,
    });
    await page.locator('tr[data-server="notes"]').click();
    return await page.screenshot({ fullPage: true, type: 'png' });
  } finally {
    await page.close();
    await view.stop();
    await manager.dispose();
    await demo.close();
  }
}

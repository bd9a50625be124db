/// <reference lib="dom" />
/**
 * `--inspect` embeds Stately's page from stately.ai. Offline (here: every request off this
 * machine refused), the frame stays blank, so the page says why and points to `--view`, which
 * needs no internet; the command's instructions say the same.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type Browser } from '../scripts/chromium.js';
import { startInspector, type InspectorHandle } from '../src/inspection/relay.js';
import { withoutChromium } from './support/chromium.js';

let inspector: InspectorHandle;
beforeAll(async () => {
  inspector = await startInspector();
});
afterAll(async () => {
  await inspector?.stop();
});

it('the instructions say the page needs the internet, and to use --view offline', () => {
  expect(inspector.instructions).toMatch(/needs the internet: offline, use --view instead/);
});

describe.skipIf(withoutChromium)('the inspector page with no internet', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.context.newPage();
    // Offline: only this machine answers.
    await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort('internetdisconnected')));
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('is not a blank frame: it says stately.ai cannot be reached and to run with --view', async () => {
    await page.goto(inspector.url);
    const notice = page.locator('#offline');
    expect(await notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toMatch(/cannot reach stately\.ai[\s\S]*--view/);
  });
});

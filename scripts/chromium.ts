/**
 * Debian's `chromium`, driven by playwright-core: no browser is ever downloaded. Used by
 * `npm run visualize` for the PNG screenshots and by the browser tests. `.ci/run` installs the
 * package when it is missing; elsewhere `apt-get install chromium` (or set CHROMIUM_PATH).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Nothing reaches the network on its own: no sync, updates, QUIC or first-run pages. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export const CHROMIUM_MISSING = `Chromium is not installed at ${CHROMIUM_PATH}: run \`apt-get install -y chromium\` (Debian; .ci/run does it) or set CHROMIUM_PATH.`;

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh, throw-away profile. */
export async function launchChromium(): Promise<Browser> {
  if (!chromiumAvailable()) throw new Error(CHROMIUM_MISSING);
  const profile = mkdtempSync(join(tmpdir(), 'mcp-statechart-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    viewport: { width: 1600, height: 1000 },
    deviceScaleFactor: 1,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

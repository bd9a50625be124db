/**
 * Browser tests run in Debian's `chromium` (scripts/chromium.ts). CI installs it (.ci/run), so
 * there a missing browser fails the tests loudly; elsewhere, where it cannot be installed, they
 * are skipped with a message that says how to get it.
 */
import { chromiumAvailable, CHROMIUM_MISSING } from '../../scripts/chromium.js';

const runs = chromiumAvailable() || Boolean(process.env.CI);
if (!runs) console.warn(`Skipping the browser tests. ${CHROMIUM_MISSING}`);

/** For `describe.skipIf(withoutChromium)`: true only outside CI on a machine without Chromium. */
export const withoutChromium = !runs;

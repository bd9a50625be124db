/**
 * Opens a URL in the user's browser: only http(s) URLs, and only by running `xdg-open` (or `open`
 * on macOS) with the URL as a single argument and no shell, so nothing in the URL is ever
 * interpreted as a command. A missing opener is not an error: the URL was printed anyway.
 */
import { spawn } from 'node:child_process';

/** True once the opener has started; false when there is none (not installed, another platform) or the URL is not http(s). */
export async function openInBrowser(url: URL): Promise<boolean> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? undefined : 'xdg-open';
  if (!opener) return false;
  try {
    const child = spawn(opener, [url.href], { stdio: 'ignore', detached: true, shell: false });
    child.unref();
    // A missing opener fails after spawn() returns: only the `spawn` event says it started.
    return await new Promise<boolean>((resolve) => {
      child.on('spawn', () => resolve(true));
      child.on('error', () => resolve(false));
    });
  } catch {
    return false;
  }
}

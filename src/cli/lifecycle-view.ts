import type { DiscoveredServer } from '../config/types.js';
import type { McpConnectionManager } from '../manager.js';
import { pressEnter } from './press-enter.js';

/**
 * `--view`: the live lifecycle page (src/view) for the command's manager, on 127.0.0.1 for as
 * long as the command. What to open goes to stderr (stdout is the protocol for `serve`). When
 * `interactive` (the demo on a terminal), it waits for Enter before the session starts, so the
 * page shows it from the first step, and again before closing, so the end can be looked at.
 */
export async function openLifecycleView(
  manager: McpConnectionManager,
  interactive: boolean,
  servers: Record<string, DiscoveredServer>,
): Promise<{ close(): Promise<void> }> {
  const { startLifecycleView } = await import('../view/lifecycle-view.js');
  const view = await startLifecycleView(manager, { servers });
  process.stderr.write(`${view.instructions}\n`);
  if (interactive) await pressEnter('Press Enter once the page is open. ');
  return {
    async close() {
      if (interactive) await pressEnter('Press Enter to close the lifecycle view. ');
      await view.stop();
    },
  };
}

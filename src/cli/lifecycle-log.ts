import type { McpConnectionManager } from '../manager.js';
import { terminalLine } from './terminal-text.js';

/**
 * `--verbose`: one stderr line per lifecycle transition of a server, with the time since the
 * command started and how long the server spent in the state it left, e.g.
 * `[+0.412s] notes: connecting → connected (409 ms)`. Returns an unsubscribe.
 */
export function logLifecycle(
  manager: Pick<McpConnectionManager, 'on'>,
  write: (line: string) => void,
  now: () => number = () => performance.now(),
): () => void {
  const started = now();
  const last = new Map<string, { state: string; since: number }>();
  return manager.on('mcp.stateChanged', (event) => {
    const at = now();
    // Every server starts out disconnected; the registry reports only changes from there.
    const previous = last.get(event.server) ?? { state: 'disconnected', since: started };
    if (previous.state === event.state) return;
    last.set(event.server, { state: event.state, since: at });
    const stamp = `[+${((at - started) / 1000).toFixed(3)}s]`;
    const stayed = `${Math.round(at - previous.since)} ms`;
    const why = event.error ? `: ${terminalLine(event.error.message.split('\n')[0] ?? '')}` : '';
    write(`${stamp} ${terminalLine(event.server)}: ${previous.state} → ${event.state} (${stayed})${why}`);
  });
}

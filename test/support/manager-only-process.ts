// A process whose only work is a manager: it connects, then disconnects everything and
// returns without calling process.exit. The test checks that it exits by itself.
import { McpConnectionManager, silentLogger } from '../../src/index.js';
import { stdioFixture } from './fixtures.js';

const mode = process.argv[2] ?? 'disconnect-all';
const manager = new McpConnectionManager({ logger: silentLogger });
await manager.connect('fixture', stdioFixture(), { idleTimeoutMs: 60 * 60_000 });
if (mode === 'disconnect-all') {
  await manager.disconnectAll();
} else if (mode === 'retrying') {
  // A server left waiting for its next retry: the backoff timer alone must not hold the process.
  void manager.connect('unreachable', { url: 'http://127.0.0.1:9/mcp' }, { maxRetries: 5 }).catch(() => {});
  await new Promise<void>((waiting) => {
    const unsubscribe = manager.on('mcp.stateChanged', (event) => {
      if (event.server === 'unreachable' && event.state === 'error') {
        unsubscribe();
        waiting();
      }
    });
  });
  await manager.disconnect('fixture');
}
process.stdout.write(`finished ${mode}\n`);

// A process whose only work is a manager. It never calls process.exit: the test checks that it
// exits by itself, with code 0, once it has printed what it awaited.
import { devNull } from 'node:os';
import { createLoaderTools, McpConnectionManager, silentLogger } from '../../src/index.js';
import { everythingBehindRelay } from './everything.js';
import { stdioFixture } from './fixtures.js';

const mode = process.argv[2] ?? 'disconnect-all';
const manager = new McpConnectionManager({ logger: silentLogger });
/** A server that exits as soon as it starts: every connect attempt fails, after the backoff. */
const exitsAtStart = { command: process.execPath, args: ['-e', 'process.exit(1)'] };
/** Nothing listens on port 9 (discard): every connect is refused. */
const refusingUrl = { url: 'http://127.0.0.1:9/mcp' };
const oneRetry = { maxRetries: 1 };

if (mode === 'disconnect-all') {
  await manager.connect('fixture', stdioFixture(), { idleTimeoutMs: 60 * 60_000 });
  await manager.disconnectAll();
} else if (mode === 'retrying-without-waiter') {
  // A server whose connection was lost waits for its next retry with nobody awaiting it: that
  // backoff timer alone must not hold the process (else it would reconnect and stay up an hour).
  await manager.connect('crashing', stdioFixture(), { idleTimeoutMs: 60 * 60_000 });
  const inError = new Promise<void>((reached) => {
    const unsubscribe = manager.on('mcp.stateChanged', (event) => {
      if (event.server === 'crashing' && event.substate === 'error.retrying') {
        unsubscribe();
        reached();
      }
    });
  });
  await manager.callTool('crashing', 'crash').catch(() => {});
  await inError;
} else if (mode === 'connect-exits-at-start') {
  await manager.connect('exits', exitsAtStart, oneRetry).then(
    () => process.stdout.write('connected?\n'),
    (error: Error) => process.stdout.write(`rejected: ${error.message}\n`),
  );
} else if (mode === 'connect-refused-url') {
  await manager.connect('refused', refusingUrl, oneRetry).then(
    () => process.stdout.write('connected?\n'),
    (error: Error) => process.stdout.write(`rejected: ${error.message}\n`),
  );
} else if (mode === 'load-mcp-exits-at-start') {
  manager.configure({ exits: exitsAtStart }, { exits: oneRetry });
  const loadMcp = createLoaderTools({ manager, servers: { exits: exitsAtStart } }).find((tool) => tool.name === 'load_mcp')!;
  const result = await loadMcp.execute({ server: 'exits' });
  process.stdout.write(`load_mcp answered: ${JSON.stringify(result).slice(0, 300)}\n`);
} else if (mode === 'dispose-with-call-in-flight') {
  // server-everything keeps running a 30 s operation after its stdin closes (the cancelled call's
  // timer), so the close has to wait and then signal it: with nobody else waiting, dispose() must
  // hold the process until that is done.
  // Behind a relay, as `mcp-statechart call` tests run it: the server is a grandchild in the group.
  await manager.connect('everything', everythingBehindRelay(devNull));
  const cancel = new AbortController();
  const call = manager.callTool('everything', 'trigger-long-running-operation', { duration: 30, steps: 30 }, { signal: cancel.signal });
  cancel.abort();
  await call.catch(() => {});
  await manager.dispose();
} else if (mode === 'registry-failed') {
  // An event read whole by the registry's up-front check, then throwing at the next read (what no
  // check ahead can see), sent to the actor the manager exposes, stops the registry on an error.
  await manager.connect('fixture', stdioFixture());
  let reads = 0;
  const changing = {
    type: 'mcp.configure' as const,
    mode: 'merge' as const,
    get servers(): Record<string, { command: string }> {
      reads += 1;
      if (reads > 1) throw new Error('this definition cannot be read');
      return { broken: { command: 'node' } };
    },
  };
  manager.actor.send(changing);
  await manager.callTool('fixture', 'pid').then(
    () => process.stdout.write('called?\n'),
    (error: Error) => process.stdout.write(`rejected: ${error.message}\n`),
  );
  await manager.dispose();
}
process.stdout.write(`finished ${mode}\n`);

// An embedding program with a stdio server whose grandchild outlives the end of its stdin, waiting
// to be ended by a signal. argv: the grandchild's pid file, then `own-handler` for a program that
// handles the signal itself by disposing of its manager, or `alone-only` for one whose library
// ends the process on SIGINT only when it is the signal's one listener, as signal-exit does.
import { McpConnectionManager, silentLogger } from '../../src/index.js';
import { stdioFixture } from './fixtures.js';

const [pidFile, style] = process.argv.slice(2);
const manager = new McpConnectionManager({ logger: silentLogger });
if (style === 'own-handler') {
  const stop = async (signal: NodeJS.Signals) => {
    await manager.dispose();
    process.stdout.write(`disposed on ${signal}\n`);
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
}
if (style === 'alone-only') {
  const endIfAlone = () => {
    if (process.listenerCount('SIGINT') !== 1) return;
    process.off('SIGINT', endIfAlone);
    process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', endIfAlone);
}
await manager.connect('fixture', stdioFixture('--grandchild-pid-file', pidFile!), { idleTimeoutMs: 0 });
const serverPid = (await manager.callTool('fixture', 'pid', {})).content as Array<{ text: string }>;
process.stdout.write(`ready ${serverPid[0]!.text}\n`);
setInterval(() => {}, 60_000);

// An embedding program with a stdio server whose grandchild outlives the end of its stdin, waiting
// to be ended by a signal. argv: the grandchild's pid file, then `own-handler` for a program that
// handles the signal itself by disposing of its manager.
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
await manager.connect('fixture', stdioFixture('--grandchild-pid-file', pidFile!), { idleTimeoutMs: 0 });
const serverPid = (await manager.callTool('fixture', 'pid', {})).content as Array<{ text: string }>;
process.stdout.write(`ready ${serverPid[0]!.text}\n`);
setInterval(() => {}, 60_000);

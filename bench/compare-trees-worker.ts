/** One call variant of one checkout, for bench/compare-trees.ts: batches of sequential calls on request, answered with CPU and wall ms. */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { CallVariant, TransportKind, VariantKey } from './lib/variants.js';

const [tree, kind, key] = process.argv.slice(2) as [string, TransportKind, VariantKey];
const { setUpCalls } = (await import(pathToFileURL(join(tree, 'bench/lib/variants.ts')).href)) as typeof import('./lib/variants.js');
const setup = await setUpCalls(kind, [key]);
const variant: CallVariant = setup.variants[key];
process.on('message', (request: { calls: number } | { close: true }) => {
  if ('close' in request) {
    void setup.close().then(() => process.disconnect());
    return;
  }
  void (async () => {
    globalThis.gc?.();
    const cpu = process.cpuUsage();
    const wall = performance.now();
    for (let index = 0; index < request.calls; index++) await variant.call();
    const used = process.cpuUsage(cpu);
    process.send!({ cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wall });
  })();
});
process.send!({ ready: true });

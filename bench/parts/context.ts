/**
 * Part 5: bytes of the tool definitions the model sees, the three loader tools against every tool
 * of the same servers (eager), for the fixture servers and for the reference servers together.
 * Deterministic: one measurement each, no rounds. Run alone: npx tsx bench/parts/context.ts
 */
import { fixtureScenarios, measureContext, referenceServersScenario, type ContextScenario } from '../lib/context-size.js';
import { emitRows, isMet, progress, ratioTarget, type BenchRow } from '../lib/report.js';
import { formatBytes } from '../lib/stats.js';

const target = ratioTarget('<=', 0.1);
const scenarios: Array<{ id: string; scenario: ContextScenario }> = [
  { id: 'context.fixtures', scenario: fixtureScenarios().at(-1)! },
  { id: 'context.reference-servers', scenario: referenceServersScenario() },
];

const rows: BenchRow[] = [];
for (const { id, scenario } of scenarios) {
  try {
    const measured = await measureContext(scenario);
    progress(`context ${measured.label}: eager ${measured.eagerBytes} B (${measured.tools} tools), loader ${measured.loaderBytes} B`);
    const ratio = measured.loaderBytes / measured.eagerBytes;
    rows.push({
      part: 'context',
      id,
      benchmark: `Context: tool definitions the model sees, loader tools vs eager — ${measured.label} (${measured.tools} tools)`,
      ours: formatBytes(measured.loaderBytes),
      baseline: formatBytes(measured.eagerBytes),
      ratio,
      target,
      met: isMet(target, measured.loaderBytes, ratio),
      data: { ...measured },
      note: `${measured.reductionPercent.toFixed(1)}% smaller (≈ ${measured.loaderTokens} against ≈ ${measured.eagerTokens} tokens)`,
    });
  } finally {
    scenario.cleanup?.();
  }
}
emitRows(rows);

/**
 * Part 5: bytes of the tool definitions the model sees, the loader tools against every tool of the
 * same servers (eager), for the fixture servers and for the reference servers together; each
 * before the servers are indexed (no search_mcp_tools yet) and after (four tools, tool counts).
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
    progress(
      `context ${measured.label}: eager ${measured.eagerBytes} B (${measured.tools} tools), ` +
        `loader ${measured.loaderBytes} B not indexed, ${measured.indexedLoaderBytes} B indexed`,
    );
    const states = [
      { suffix: '', when: 'not indexed yet', tools: measured.loaderTools, bytes: measured.loaderBytes, tokens: measured.loaderTokens },
      {
        suffix: '.indexed',
        when: 'all indexed',
        tools: measured.indexedLoaderTools,
        bytes: measured.indexedLoaderBytes,
        tokens: measured.indexedLoaderTokens,
      },
    ];
    for (const state of states) {
      const ratio = state.bytes / measured.eagerBytes;
      rows.push({
        part: 'context',
        id: `${id}${state.suffix}`,
        benchmark:
          `Context: tool definitions the model sees, ${state.tools} loader tools (${state.when}) vs eager — ` +
          `${measured.label} (${measured.tools} tools)`,
        ours: formatBytes(state.bytes),
        baseline: formatBytes(measured.eagerBytes),
        ratio,
        target,
        met: isMet(target, state.bytes, ratio),
        data: { ...measured },
        note: `${(100 * (1 - ratio)).toFixed(1)}% smaller (≈ ${state.tokens} against ≈ ${measured.eagerTokens} tokens)`,
      });
    }
  } finally {
    scenario.cleanup?.();
  }
}
emitRows(rows);

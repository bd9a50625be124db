/**
 * What the loader tools save in the model's context: the loader tool definitions against
 * registering every tool of the same servers up front (the "eager" way).
 * Run: npx tsx bench/context-size.bench.ts   — prints sizes, asserts nothing.
 * The same measurement is part 5 of `npm run bench` (bench/parts/context.ts).
 */
import {
  fixtureScenarios,
  formatContextMeasurement,
  measureContext,
  referenceServersScenario,
} from './lib/context-size.js';

for (const scenario of [...fixtureScenarios(), referenceServersScenario()]) {
  try {
    console.log(formatContextMeasurement(await measureContext(scenario)));
  } finally {
    scenario.cleanup?.();
  }
}

/**
 * `npm run test:node-lines`: the unit and integration tests that `.ci/run` runs again on Node 22
 * and 24 (`.ci/node-line`), after the whole suite on Node 20. What differs between Node lines is
 * the runtime under our code — child processes and process groups, streams and backpressure,
 * fetch (undici) and node:http, crypto, timers, fs watching, require() of ES modules — and all of
 * it stays in. Left out, each for about 15 minutes a line on 2 quiet cores, are files that test
 * something else and mostly wait on tools outside Node: the CLI end to end, the browser, tmux,
 * haproxy, `npm pack`, api-extractor, and load or property runs that only repeat what stays in.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const leftOut = [
  // The CLI end to end (about 6 minutes): a built CLI in a subprocess per case. Its runtime parts
  // (stdio, HTTP, OAuth, config watching, serve) run below without the CLI around them.
  'test/cli-*.test.ts',
  'test/readme-demo-transcript.test.ts',
  // The browser (Debian's chromium through playwright-core): the lifecycle view and the diagrams.
  'test/lifecycle-view.test.ts',
  'test/lifecycle-view-scale.test.ts',
  'test/inspector-offline.test.ts',
  'test/visualizations-geometry.test.ts',
  // Debian's haproxy in front of three serve replicas; serve's HTTP gateway runs below without it.
  'test/gateway-haproxy.test.ts',
  // `npm pack`, an install and a strict tsc of a consumer; require() of the package stays in
  // (test/packaging.test.ts).
  'test/packed-consumer.test.ts',
  // Types and the API report (api-extractor): nothing runs on the Node under test.
  'test/public-surface.test.ts',
  // Bench-ish: 200 stdio servers at once (3 minutes) and 42 s of random lifecycle sequences on
  // scripted transports; stdio, crash and reconnect on real processes stay in (faults,
  // stdio-connection, process-group, server-crash).
  'test/load.test.ts',
  'test/lifecycle-properties.test.ts',
  // The conformance suite's own CLI, 0.1.13 (70 s); the OAuth client it checks runs below on real
  // HTTP servers (test/oauth-*.test.ts).
  'test/conformance/conformance.test.ts',
];

export default defineConfig({
  ...base,
  // One project: test/load.test.ts, which the whole suite runs alone (vitest.config.ts), is left out here.
  test: { ...base.test, projects: undefined, include: ['test/**/*.test.ts'], exclude: [...(base.test?.exclude ?? []), ...leftOut], coverage: { enabled: false } },
});

/**
 * The `mcp-statechart` CLI as a bench module: bench/run.ts bundles it beside the parts, so the
 * gateway part starts `serve` and `serve --http` as plain `node` processes (no TypeScript loader in
 * their memory or CPU figures), as a user's installed CLI runs.
 */
import '../../src/cli/main.js';

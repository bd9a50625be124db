'use strict';
// require('mcp-statechart'). The package is ES modules only; Node 20.19 and later can require()
// an ES module without top-level await, which this one is. Older Node cannot: say so plainly.
try {
  module.exports = require('../dist/src/index.js');
} catch (error) {
  if (error && (error.code === 'ERR_REQUIRE_ESM' || error.code === 'ERR_REQUIRE_ASYNC_MODULE')) {
    throw new Error(
      'mcp-statechart is an ES module package (ESM-only). Use `import { McpConnectionManager } from "mcp-statechart"` ' +
        '(or `await import("mcp-statechart")`), or Node.js 20.19 or later, where require() can load ES modules.',
      { cause: error },
    );
  }
  throw error;
}

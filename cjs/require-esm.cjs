'use strict';
// require('mcp-statechart') and its subpaths. The package is ES modules only; Node 20.19 and later
// can require() an ES module without top-level await, which each entry point is. Older Node
// cannot: say so plainly.
module.exports = function requireEsm(load, specifier, example) {
  try {
    return load();
  } catch (error) {
    if (error && (error.code === 'ERR_REQUIRE_ESM' || error.code === 'ERR_REQUIRE_ASYNC_MODULE')) {
      throw new Error(
        `mcp-statechart is an ES module package (ESM-only). Use \`import { ${example} } from "${specifier}"\` ` +
          `(or \`await import("${specifier}")\`), or Node.js 20.19 or later, where require() can load ES modules.`,
        { cause: error },
      );
    }
    throw error;
  }
};

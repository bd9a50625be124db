'use strict';
module.exports = require('./require-esm.cjs')(() => require('../dist/src/index.js'), 'mcp-statechart', 'McpConnectionManager');
